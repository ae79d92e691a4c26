// Drives the peer server for `python -m bench peer`: MATCHES matches of three
// seats, created and joined through boardgame.io's lobby API, then played all at
// once by boardgame.io's own client (one Client per seat, SocketIO transport over
// a websocket).  The seat whose turn it is makes a random legal move as soon as
// its own view shows the turn is its; a move's latency runs from
// `client.moves.x()` to the server's new state arriving at the mover's client.
//
//   node drive.js <port> [matches] [moves per match]
//
// Prints on stdout a JSON line {"event": "start"} when the matches exist and
// play begins, then one JSON line of results.

const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Game, legalMoves, NAME, SEATS, DEFAULT_MOVES } = require('./game');

const port = Number(process.argv[2] || process.env.PEER_PORT || 8000);
const MATCHES = Number(process.argv[3] || 8);
const MOVES = Number(process.argv[4] || DEFAULT_MOVES);
const BASE = `http://127.0.0.1:${port}`;
const TIMEOUT_MS = 600 * 1000;

async function post(path, body) {
  const response = await fetch(BASE + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function createMatch() {
  const { matchID } = await post(`/games/${NAME}/create`, { numPlayers: SEATS, setupData: { moves: MOVES } });
  const seats = [];
  for (let seat = 0; seat < SEATS; seat++) {
    const { playerCredentials } = await post(`/games/${NAME}/${matchID}/join`,
                                             { playerID: String(seat), playerName: `P${seat}` });
    seats.push({ playerID: String(seat), credentials: playerCredentials });
  }
  return { matchID, seats };
}

// Deterministic per match, so two runs make the same kinds of moves.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One match: three clients; resolves with the latency (ms) of each move, in order.
function playMatch({ matchID, seats }, index) {
  return new Promise((resolve, reject) => {
    const random = rng(1000 + index);
    const latencies = [];
    const clients = [];
    const pending = {}; // playerID -> { stateID, start, number }: a move not yet answered
    let moved = -1;     // the _stateID the last move was made from
    let finished = false;
    const timer = setTimeout(() => finish(new Error(`match ${matchID} did not end`)), TIMEOUT_MS);

    function finish(err) {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      for (const client of clients) client.stop();
      if (err) reject(err);
      else resolve(latencies);
    }

    function onState(client, state) {
      if (finished || state === null) return;
      const mine = pending[client.playerID];
      if (mine && state._stateID > mine.stateID) {
        latencies[mine.number] = performance.now() - mine.start;
        delete pending[client.playerID];
      }
      if (state.ctx.gameover !== undefined) {
        if (Object.keys(pending).length === 0) finish();
        return;
      }
      if (state.ctx.currentPlayer !== client.playerID || state._stateID <= moved) return;
      // the previous mover may not have its answer yet: its own socket brings it
      const options = legalMoves(state.G, client.playerID);
      const [move, args] = options[Math.floor(random() * options.length)];
      moved = state._stateID;
      pending[client.playerID] = { stateID: state._stateID, start: performance.now(),
                                   number: latencies.length };
      latencies.push(null);
      client.moves[move](...args);
    }

    for (const { playerID, credentials } of seats) {
      const client = Client({
        game: Game,
        numPlayers: SEATS,
        matchID,
        playerID,
        credentials,
        debug: false,
        multiplayer: SocketIO({ server: BASE, socketOpts: { transports: ['websocket'] } }),
      });
      clients.push(client);
      client.subscribe((state) => {
        try {
          onState(client, state);
        } catch (err) {
          finish(err);
        }
      });
    }
    for (const client of clients) client.start();
  });
}

function percentile(samples, q) {
  if (samples.length === 0) return null;
  const ordered = [...samples].sort((a, b) => a - b);
  return ordered[Math.min(ordered.length - 1, Math.floor(q * ordered.length))];
}

const round = (x) => (x === null ? null : Math.round(x * 100) / 100);

async function main() {
  const matches = [];
  for (let i = 0; i < MATCHES; i++) matches.push(await createMatch());
  console.error(`drive: ${MATCHES} matches of ${SEATS} created and joined; playing`);
  // the caller starts counting the server's CPU time at this line
  console.log(JSON.stringify({ event: 'start' }));
  const start = performance.now();
  const results = await Promise.all(matches.map((match, i) => playMatch(match, i)));
  const wall = (performance.now() - start) / 1000;
  const all = results.flat();
  const slice = (from, to) => results.flatMap((moves) => moves.slice(from - 1, to));
  const lengths = results.map((moves) => moves.length);
  const out = {
    matches: MATCHES,
    seats: SEATS,
    moves: all.length,
    wall_s: round(wall),
    moves_per_s: round(all.length / wall),
    p50_ms: round(percentile(all, 0.5)),
    p99_ms: round(percentile(all, 0.99)),
    first10_p50_ms: round(percentile(slice(1, 10), 0.5)),
    moves191_200_p50_ms: round(percentile(slice(191, 200), 0.5)),
    moves191_200_count: slice(191, 200).length,
    min_moves: Math.min(...lengths),
    max_moves: Math.max(...lengths),
  };
  console.log(JSON.stringify(out));
  // socket.io clients were stopped; make sure nothing keeps the process up
  setImmediate(() => process.exit(0));
}

main().catch((err) => {
  console.error('drive.js:', err);
  process.exit(1);
});
