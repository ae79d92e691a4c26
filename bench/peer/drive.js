// Drives the peer server for `python -m bench peer`: MATCHES matches of three
// seats, created and joined through boardgame.io's lobby API, then played all at
// once by boardgame.io's own client (one Client per seat, SocketIO transport over
// a websocket).  The seat whose turn it is makes a random legal move as soon as
// its own view shows the turn is its; a move's latency runs from
// `client.moves.x()` to the server's new state arriving at the mover's client.
//
//   node drive.js <port> [matches] [moves per match] [window seconds]
//
// With a window (`python -m bench peer-lived`, issue 30 item 5): no match alone
// after the run; `matches` matches are played at once for that many seconds, a
// match that ends before then followed at once by a new one (created, joined and
// connected inside the window, as a server on its thirtieth day sees new matches
// start among the running ones), and no move is made after the window's end (the
// moves under way are answered and counted).
//
// First a short warm-up (two matches, not counted); then the measured run, its
// matches created, joined and connected before the first move; then one match
// played alone, to show what a move costs as the match's log grows.  Prints on
// stdout {"event": "start"} and {"event": "end"} around the measured run's play
// (the bench reads the server's CPU time there), then one JSON line of results.

const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Game, legalMoves, NAME, SEATS, DEFAULT_MOVES } = require('./game');

const port = Number(process.argv[2] || process.env.PEER_PORT || 8000);
const MATCHES = Number(process.argv[3] || 8);
const MOVES = Number(process.argv[4] || DEFAULT_MOVES);
const BASE = `http://127.0.0.1:${port}`;
const TIMEOUT_MS = 600 * 1000;
const WARMUP_MOVES = 30;
const WINDOW_S = Number(process.argv[5] || 0);

async function post(path, body) {
  const response = await fetch(BASE + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function createMatch(moves) {
  const { matchID } = await post(`/games/${NAME}/create`, { numPlayers: SEATS, setupData: { moves } });
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

// One match: three clients, connected and synced by `ready`; `go()` starts play
// and resolves with the latency (ms) of each move, in order.
function openMatch({ matchID, seats }, index) {
  const random = rng(1000 + index);
  const latencies = [];
  const clients = [];
  const pending = {}; // playerID -> { stateID, start, number }: a move not yet answered
  let moved = -1;     // the _stateID the last move was made from
  let playing = false;
  let finished = false;
  let resolve, reject, synced;
  const done = new Promise((res, rej) => { resolve = res; reject = rej; });
  const ready = new Promise((res) => { synced = res; });
  let timer = null;
  let until = Infinity; // no move is made after this (a window's end)

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
    if (!playing) {
      if (clients.every((c) => c.getState() !== null)) synced();
      return;
    }
    const mine = pending[client.playerID];
    if (mine && state._stateID > mine.stateID) {
      latencies[mine.number] = performance.now() - mine.start;
      delete pending[client.playerID];
    }
    if (state.ctx.gameover !== undefined || performance.now() >= until) {
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

  function go(end = Infinity) {
    until = end;
    playing = true;
    timer = setTimeout(() => finish(new Error(`match ${matchID} did not end`)), TIMEOUT_MS);
    for (const client of clients) onState(client, client.getState());
    return done;
  }
  return { ready, go };
}

// Create, join and connect `count` matches of `moves` moves, then play them all
// at once; `onStart` runs when the first move is about to be made.
async function playMatches(count, moves, seed, onStart = () => {}) {
  const created = [];
  for (let i = 0; i < count; i++) created.push(await createMatch(moves));
  const opened = created.map((match, i) => openMatch(match, seed + i));
  await Promise.all(opened.map((match) => match.ready));
  onStart();
  const start = performance.now();
  const results = await Promise.all(opened.map((match) => match.go()));
  return { results, wall: (performance.now() - start) / 1000 };
}

// Window mode: `count` matches at a time for `seconds`; a match that ends before
// then is followed by a new one in its lane.
async function playWindow(count, moves, seconds, onStart) {
  const first = [];
  for (let i = 0; i < count; i++) first.push(openMatch(await createMatch(moves), i));
  await Promise.all(first.map((match) => match.ready));
  onStart();
  const start = performance.now();
  const end = start + seconds * 1000;
  let next = count;
  let started = count;
  const lanes = first.map(async (match) => {
    const made = [];
    for (let current = match; ;) {
      made.push(await current.go(end));
      if (performance.now() >= end) return made;
      current = openMatch(await createMatch(moves), next++);
      started += 1;
      await current.ready;
    }
  });
  const results = (await Promise.all(lanes)).flat();
  return { results, wall: (performance.now() - start) / 1000, started };
}

async function mainWindow() {
  await playMatches(2, WARMUP_MOVES, 100);
  console.error(`drive: warmed up; playing ${MATCHES} matches at once for ${WINDOW_S} s`);
  const { results, wall, started } = await playWindow(MATCHES, MOVES, WINDOW_S, () => {
    console.log(JSON.stringify({ event: 'start' }));
  });
  console.log(JSON.stringify({ event: 'end' }));
  console.log(JSON.stringify({ ...figures(results, wall), matches_played: started }));
  setImmediate(() => process.exit(0));
}

// What every run reports: its moves, their rate, p50 and p99.
function figures(results, wall) {
  const all = results.flat();
  return {
    matches: MATCHES,
    seats: SEATS,
    moves: all.length,
    wall_s: round(wall),
    moves_per_s: round(all.length / wall),
    p50_ms: round(percentile(all, 0.5)),
    p99_ms: round(percentile(all, 0.99)),
  };
}

function percentile(samples, q) {
  if (samples.length === 0) return null;
  const ordered = [...samples].sort((a, b) => a - b);
  return ordered[Math.min(ordered.length - 1, Math.floor(q * ordered.length))];
}

const round = (x) => (x === null ? null : Math.round(x * 100) / 100);

async function main() {
  // warm-up, not counted: node compiles its hot paths, the pool opens its connections
  await playMatches(2, WARMUP_MOVES, 100);
  console.error(`drive: warmed up; playing ${MATCHES} matches of ${SEATS}`);
  // the caller counts the server's CPU time between these two lines
  const { results, wall } = await playMatches(MATCHES, MOVES, 0, () => {
    console.log(JSON.stringify({ event: 'start' }));
  });
  console.log(JSON.stringify({ event: 'end' }));
  // one more match with nothing else going on: what a move costs as the log grows
  const alone = (await playMatches(1, MOVES, 50)).results[0];
  const slice = (from, to) => results.flatMap((moves) => moves.slice(from - 1, to));
  const lengths = results.map((moves) => moves.length);
  const out = {
    ...figures(results, wall),
    first10_p50_ms: round(percentile(slice(1, 10), 0.5)),
    moves191_200_p50_ms: round(percentile(slice(191, 200), 0.5)),
    moves191_200_count: slice(191, 200).length,
    min_moves: Math.min(...lengths),
    max_moves: Math.max(...lengths),
    alone_moves: alone.length,
    alone_first10_p50_ms: round(percentile(alone.slice(0, 10), 0.5)),
    alone_middle10_p50_ms: round(percentile(alone.slice(95, 105), 0.5)),
    alone_moves191_200_p50_ms: round(percentile(alone.slice(190, 200), 0.5)),
  };
  console.log(JSON.stringify(out));
  // every client was stopped; make sure nothing keeps the process up
  setImmediate(() => process.exit(0));
}

(WINDOW_S > 0 ? mainWindow : main)().catch((err) => {
  console.error('drive.js:', err);
  process.exit(1);
});
