// The peer's workload: a dice tray for 13 seats, the boardgame.io counterpart of our `roll` on the
// dice tray. Every seat may roll at any time (all players active, no move limit).
//
// - `roll` throws 2d6 with boardgame.io's seeded random plugin and counts the throws in G.rolls,
//   the number the benchmark watches. It runs on the server only (`client: false`; a move that
//   draws randomness is never applied optimistically either), so the mover's own client waits for
//   the server's update like every other client. `ignoreStaleStateID` lets moves go out on their
//   schedule, as our commands do, without waiting for the previous state to come back.
// - Each seat has a private note; playerView gives a seat its own note only and a spectator none,
//   so the server builds a view per connection on every move, as ours does per phone.
'use strict';
const { ActivePlayers } = require('boardgame.io/core');

const SEATS = 13;

function roll({ G, random }) {
  const dice = random.Die(6, 2);
  G.dice = dice;
  G.total = dice[0] + dice[1];
  G.rolls += 1;
}

function seatView({ G, playerID }) {
  const notes = {};
  if (playerID != null && G.notes[playerID] !== undefined) notes[playerID] = G.notes[playerID];
  return { ...G, notes };
}

const DiceTray = {
  name: 'tray',
  minPlayers: SEATS,
  maxPlayers: SEATS,
  setup: ({ ctx }) => {
    const notes = {};
    for (let seat = 0; seat < ctx.numPlayers; seat++) notes[String(seat)] = { seat, name: `P${seat + 1}` };
    return { rolls: 0, dice: [], total: 0, notes };
  },
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    roll: { move: roll, client: false, ignoreStaleStateID: true },
  },
  playerView: seatView,
};

module.exports = { DiceTray, SEATS };
