// The browser's own check of an exported game: the hash chain, the seed against its commitment,
// the players' contributions, and every draw recomputed from the seed (the twin of
// companion/table/verify.py, minus re-deciding commands, which needs the game's Python rules).
"use strict";
window.CompanionVerify = (function () {
  const S = window.CompanionSha256;
  const utf8 = (text) => new TextEncoder().encode(text);
  const fromHex = (hex) => Uint8Array.from(hex.match(/../g) || [], (h) => parseInt(h, 16));
  const concat = (...parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  };
  const be = (value, width) => {
    const out = new Uint8Array(width);
    let v = BigInt(value);
    for (let i = width - 1; i >= 0; i--) { out[i] = Number(v & 0xffn); v >>= 8n; }
    return out;
  };

  // The same text as Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False).
  function canonical(value) {
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
  }

  function eventHash(e, prev) {
    const content = { stream: e.stream, seq: e.seq, type: e.type, actor: e.actor, data: e.data, reveals: e.reveals,
      draws: e.draws, mono_us: e.mono_us, wall_ms: e.wall_ms, prev };
    if (e.command !== undefined && e.command !== null) content.command = e.command;
    return S(canonical(content));
  }

  function masterKey(seed, included) {
    const parts = [utf8("table-companion/master/v1")];
    for (const [seat, value] of included.slice().sort((a, b) => a[0] - b[0])) parts.push(be(seat, 2), be(value.length, 2), value);
    return S.hmac(seed, concat(...parts));
  }

  function draw(master, counter, purpose, bound) {
    if (bound === 1) return 0;
    const bits = (BigInt(bound) - 1n).toString(2).length;
    const width = Math.ceil(bits / 8);
    const mask = (1n << BigInt(bits)) - 1n;
    const label = utf8(purpose);
    for (let block = 0; ; block++) {
      const data = S.hmac(master, concat(be(counter, 8), be(block, 4), label));
      for (let start = 0; start + width <= data.length; start += width) {
        let value = 0n;
        for (let i = start; i < start + width; i++) value = (value << 8n) | BigInt(data[i]);
        value &= mask;
        if (value < BigInt(bound)) return Number(value);
      }
    }
  }

  function verify(exported) {
    const problems = [];
    const verdict = { ok: false, randomEvents: 0, draws: 0, problems, gameId: exported && exported.game_id };
    const events = exported && Array.isArray(exported.events) ? exported.events : null;
    if (!events || !events.length || events[0].type !== "game_started") {
      problems.push("the export does not begin with the game's start");
      return verdict;
    }
    let prev = "0".repeat(64);
    let lastSeq = 0;
    for (const e of events) {
      if (e.seq !== lastSeq + 1) problems.push(`event ${e.seq}: expected event ${lastSeq + 1} here (hash chain)`);
      if (e.prev !== prev) problems.push(`event ${e.seq}: does not link to the event before it (hash chain)`);
      if (eventHash(e, e.prev) !== e.hash) problems.push(`event ${e.seq}: content does not match its hash (hash chain)`);
      prev = e.hash;
      lastSeq = e.seq;
    }
    const started = events[0];
    const revealed = events.filter((e) => e.type === "seed_revealed");
    if (!revealed.length) {
      problems.push("the seed was never revealed: verify the export once the game is over");
      return verdict;
    }
    const seedHex = String(revealed[revealed.length - 1].data.seed || "");
    const commitment = started.data.seed_commitment;
    if (S(`table-companion/seed/v1:${started.stream}:${seedHex}`) !== commitment) {
      problems.push(`event ${revealed[revealed.length - 1].seq}: the revealed seed does not match the commitment ` +
        `${commitment} published at the start (event ${started.seq})`);
      return verdict;
    }
    const seed = fromHex(seedHex);
    const entropy = {};
    let master = masterKey(seed, []);
    let epoch = 0;
    let counter = 0;
    for (const e of events) {
      if (e.type === "entropy_committed") entropy[e.data.seat] = { commitment: e.data.commitment, value: null };
      else if (e.type === "entropy_timed_out") {
        for (const s of e.data.seats) if (entropy[s]) entropy[s].timedOut = true;
      } else if (e.type === "entropy_revealed") {
        const mine = entropy[e.data.seat];
        const refusal = !mine ? "not_committed" : mine.timedOut ? "reveal_too_late"
          : S(`${e.stream}:${e.data.seat}:${e.data.value}`) !== mine.commitment ? "reveal_mismatch" : null;
        if (refusal) problems.push(`event ${e.seq}: seat ${e.data.seat}'s revealed bytes do not fit (${refusal})`);
        else mine.value = e.data.value;
      } else if (e.type === "randomness_sealed") {
        const seats = e.data.seats.map(Number).sort((a, b) => a - b);
        const ready = Object.keys(entropy).map(Number).filter((s) => entropy[s].value !== null).sort((a, b) => a - b);
        if (seats.join() !== ready.join()) {
          problems.push(`event ${e.seq}: the seed was combined with seats [${seats.join(", ")}], but seats ` +
            `[${ready.join(", ")}] had revealed`);
        }
        master = masterKey(seed, seats.filter((s) => entropy[s]).map((s) => [s, fromHex(entropy[s].value || "")]));
        epoch = e.data.epoch;
      }
      if (!e.draws || !e.draws.length) continue;
      verdict.randomEvents += 1;
      for (const d of e.draws) {
        verdict.draws += 1;
        if (d.counter !== counter || d.epoch !== epoch) {
          problems.push(`event ${e.seq}: draw '${d.purpose}' is numbered ${d.counter} (epoch ${d.epoch}) but ` +
            `should be ${counter} (epoch ${epoch}): a draw was skipped or redone`);
        }
        const expected = draw(master, counter, d.purpose, d.bound);
        if (expected !== d.value) {
          problems.push(`event ${e.seq}: draw '${d.purpose}' (number ${counter}) gives ${expected} below ` +
            `${d.bound} from the seed, but the log says ${d.value}`);
        }
        counter += 1;
      }
    }
    verdict.ok = problems.length === 0;
    return verdict;
  }

  return { verify, canonical, draw, masterKey };
})();
