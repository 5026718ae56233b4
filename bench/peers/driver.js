// The peer's clients, all in this one process, against server.js on loopback: the seated players
// and the spectators, each its own socket.io connection (websocket). Seat 1 runs boardgame.io's
// Client and fires `roll` on a schedule, one every intervalMs; the others speak the same protocol on
// a bare socket.io-client socket ('sync' once connected, then each 'update' the server sends), the
// way our benchmark's streams read the server-sent events without running the page. A move is timed
// from the call that sends it to the moment EVERY client's socket has received a state with that
// throw (socket.io's catch-all listener; on seat 1 it runs before the Client's own handler).
//
// Usage: node driver.js CONFIG_JSON, with the keys
//   port, serverPid      the server to load and to watch (/proc/<serverPid>/stat and status)
//   clients, players     all clients, and how many of them are seated players (the rest spectate;
//                        the 13 seats are all taken in the lobby whatever the count)
//   moves, intervalMs    how many moves, how far apart
//   clkTck               the kernel's clock ticks per second (getconf CLK_TCK)
//   connectTimeoutS, maxFireS, drainTimeoutS, quietS, maxSeconds   the bounds of every wait
// Prints one JSON line on stdout (the figures), progress and errors on stderr; exits 0 on success.
//
// Like bench/live_latency.py: moves are sent at their due time whatever came back (a move sent
// more than half an interval late is counted), firing stops after maxFireS, the server's CPU is
// utime + stime from /proc over the moves, its memory VmRSS.
'use strict';
const fs = require('fs');
const { performance } = require('perf_hooks');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { io } = require('socket.io-client');
const { DiceTray, SEATS } = require('./game');

const cfg = JSON.parse(process.argv[2] || '{}');
const base = `http://127.0.0.1:${cfg.port}`;
const now = () => performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

setTimeout(() => {
  process.stderr.write(`driver: gave up after ${cfg.maxSeconds} s\n`);
  process.exit(3);
}, cfg.maxSeconds * 1000).unref();

// -- the server from outside, and this machine -----------------------------------------------------

// [user, system] CPU seconds of the server, all its threads (utime and stime of /proc/<pid>/stat)
function serverCpuS() {
  const stat = fs.readFileSync(`/proc/${cfg.serverPid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]) / cfg.clkTck, Number(fields[12]) / cfg.clkTck];
}

// context switches of all the server's threads so far
function serverSwitches() {
  let total = 0;
  for (const task of fs.readdirSync(`/proc/${cfg.serverPid}/task`)) {
    try {
      const status = fs.readFileSync(`/proc/${cfg.serverPid}/task/${task}/status`, 'utf8');
      for (const match of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm)) total += Number(match[1]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return total;
}

function serverRssMb() {
  const status = fs.readFileSync(`/proc/${cfg.serverPid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

function machineBusyS() {
  const values = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  return (total - values[3] - values[4]) / cfg.clkTck; // less idle and iowait
}

function ownCpuS() {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

// -- lobby ------------------------------------------------------------------------------------------

async function post(path, body) {
  const response = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10000),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// Each seat sees its own note only, a spectator none: the per-connection views are really built.
function checkViews(views) {
  views.forEach((G, i) => {
    const keys = Object.keys(G.notes);
    const want = i < cfg.players ? [String(i)] : [];
    if (keys.join() !== want.join()) throw new Error(`client ${i} sees the notes of ${keys.join() || 'nobody'}`);
  });
}

async function main() {
  const out = { rss: [], disconnects: 0, lateSends: 0 };
  const { matchID } = await post(`/games/${DiceTray.name}/create`, { numPlayers: SEATS });
  const credentials = [];
  for (let seat = 0; seat < SEATS; seat++) {
    const joined = await post(`/games/${DiceTray.name}/${matchID}/join`, { playerID: String(seat), playerName: `P${seat + 1}` });
    credentials.push(joined.playerCredentials);
  }

  // -- the clients ----------------------------------------------------------------------------------
  const arrivals = []; // arrivals[i][k]: when client i received a state with move k in it (NaN: not yet)
  const seen = []; // throws in the last state client i received; -1 before its first
  const views = []; // the G of that state
  let lastArrival = now();
  const watch = (i, socket) => {
    socket.onAny((event, ...args) => {
      const G = event === 'update' ? args[1].G : event === 'sync' ? args[1].state.G : undefined;
      if (G === undefined || G.rolls <= seen[i]) return;
      const t = now();
      for (let k = Math.max(seen[i], 0); k < Math.min(G.rolls, cfg.moves); k++) arrivals[i][k] = t;
      seen[i] = G.rolls;
      views[i] = G;
      lastArrival = t;
    });
  };
  // each client its own connection, as each phone and display has; straight to websocket (a browser
  // starts with long polling and upgrades: the same socket once the page is up)
  const socketOpts = { transports: ['websocket'], forceNew: true };
  const startMover = () => {
    const client = Client({
      game: DiceTray,
      numPlayers: SEATS,
      matchID,
      playerID: '0',
      credentials: credentials[0],
      multiplayer: SocketIO({ server: base, socketOpts }),
      debug: false,
    });
    client.start(); // makes its socket, which reads nothing before this turn of the event loop ends
    return client;
  };
  const bareSocket = (seat) => {
    const socket = io(`${base}/${DiceTray.name}`, socketOpts);
    const playerID = seat === null ? undefined : String(seat);
    const secret = seat === null ? undefined : credentials[seat];
    socket.on('connect', () => socket.emit('sync', matchID, playerID, secret, SEATS));
    return socket;
  };
  let mover = null;
  const sockets = [];
  for (let i = 0; i < cfg.clients; i++) {
    arrivals.push(new Float64Array(cfg.moves).fill(NaN));
    seen.push(-1);
    views.push(null);
    const seat = i < cfg.players ? i : null;
    if (seat === 0) mover = startMover();
    const socket = seat === 0 ? mover.transport.socket : bareSocket(seat);
    watch(i, socket);
    sockets.push(socket);
  }
  // seat 1 rolls; with no seated player among the watched clients, an extra one does (unwatched)
  if (mover === null) mover = startMover();

  const ready = () => seen.every((n) => n === 0) && mover.getState() && mover.getState().isConnected;
  const connectDeadline = now() + cfg.connectTimeoutS * 1000;
  while (!ready()) {
    if (now() > connectDeadline) throw new Error(`not every client had the state within ${cfg.connectTimeoutS} s`);
    await sleep(10);
  }
  checkViews(views);
  if (new Set(sockets.map((s) => s.io.engine)).size !== sockets.length) throw new Error('clients share a connection');
  sockets.forEach((s) => s.on('disconnect', () => out.disconnects++));
  const bytes = [0, cfg.clients - 1].map((i) => {
    const count = { name: i < cfg.players ? `player${i + 1}` : `spectator${i - cfg.players + 1}`, messages: 0, bytes: 0 };
    sockets[i].io.engine.on('message', (data) => {
      count.messages++;
      count.bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    });
    return count;
  });
  await sleep(cfg.quietS * 1000);
  out.rss.push([`${cfg.clients} clients connected`, serverRssMb()]);

  // -- the moves ------------------------------------------------------------------------------------
  const interval = cfg.intervalMs;
  const sent = [];
  let moves = 0; // the server numbers them in G.rolls in the order they come, all from one socket
  const cpuBefore = serverCpuS();
  const switchesBefore = serverSwitches();
  const machineBefore = machineBusyS();
  const ownBefore = ownCpuS();
  const start = now();
  for (let k = 0; k < cfg.moves; k++) {
    const due = start + k * interval;
    const t = now();
    if (t - start > cfg.maxFireS * 1000) {
      process.stderr.write(`  stopped firing after ${cfg.maxFireS} s (${k} moves)\n`);
      break;
    }
    if (due > t) await sleep(due - t);
    else if (t - due > interval / 2) out.lateSends++;
    sent.push(now());
    mover.moves.roll();
    moves++;
    if (moves === 500 && cfg.moves > 500) out.rss.push(['after 500 commands', serverRssMb()]);
  }
  const fireEnd = now();
  const drainDeadline = now() + cfg.drainTimeoutS * 1000;
  while (seen.some((n) => n < moves) && now() < drainDeadline) await sleep(2);
  const cpuAfter = serverCpuS();
  const switches = serverSwitches() - switchesBefore;
  const systemS = cpuAfter[1] - cpuBefore[1];
  const cpuS = cpuAfter[0] - cpuBefore[0] + systemS;
  const ownS = ownCpuS() - ownBefore;
  const machineS = machineBusyS() - machineBefore;
  const windowS = (now() - start) / 1000;
  while (now() - lastArrival < cfg.quietS * 1000 && now() < drainDeadline) await sleep(20);
  out.rss.push([`after ${moves} commands`, serverRssMb()]);
  checkViews(views);

  out.fired = moves;
  out.fireS = (fireEnd - start) / 1000;
  out.cpuPerMoveMs = (cpuS / Math.max(moves, 1)) * 1000;
  out.systemShare = systemS / Math.max(cpuS, 1e-9);
  out.switchesPerMove = switches / Math.max(moves, 1);
  out.clientCpu = ownS / windowS;
  out.otherCpu = Math.max(machineS - ownS - cpuS, 0) / windowS;
  out.latenciesMs = [];
  out.clientMedianMs = [];
  out.undelivered = 0;
  for (let k = 0; k < moves; k++) {
    const got = arrivals.map((a) => a[k]);
    if (got.some(Number.isNaN)) {
      out.undelivered++;
      continue;
    }
    out.latenciesMs.push(Math.max(...got) - sent[k]);
    out.clientMedianMs.push(median(got) - sent[k]);
  }
  out.messageBytes = bytes.map((b) => [b.name, Math.round(b.bytes / Math.max(b.messages, 1))]);
  const figures = JSON.stringify(out); // before the clients stop: their own disconnects do not count
  mover.stop();
  for (const socket of sockets) socket.close();
  process.stdout.write(figures + '\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`driver: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  },
);
