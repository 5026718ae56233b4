// The peer's game server in a process of its own, so that its CPU time (/proc/<pid>/stat) is its
// alone: boardgame.io's Server (Koa, its lobby routes, socket.io), in-memory storage, on 127.0.0.1.
//
// Usage: node server.js [MAX_SECONDS]
// Prints "listening PORT" on stdout once it accepts connections (the kernel picks a free port).
// Stops on SIGTERM or SIGINT, when its stdin closes (the benchmark that started it is gone), and
// after MAX_SECONDS (default 600) whatever happens.
'use strict';
const { Server, Origins } = require('boardgame.io/server');
const { DiceTray } = require('./game');

const maxSeconds = Number(process.argv[2] || 600);

const server = Server({ games: [DiceTray], origins: [Origins.LOCALHOST] });

// Server.run() listens on every interface; the benchmark stays on loopback. The socket.io
// transport has already made the app's http.Server, so listen on it with an explicit host.
const httpServer = server.app.server;
server.app.listen = (port, onListening) => httpServer.listen({ port, host: '127.0.0.1' }, onListening);

server.run({ port: 0 }).then(() => {
  process.stdout.write(`listening ${httpServer.address().port}\n`);
});

const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
setTimeout(stop, maxSeconds * 1000).unref();
