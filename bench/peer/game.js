// A small hidden-information card game for three, written for boardgame.io 0.50:
// the peer's side of `python -m bench peer`.
//
// Two shuffled 52-card decks, three cards dealt to each seat.  On your turn you
// make exactly one move: draw the top card (hand limit six), discard a card from
// your hand (a point if it matches the suit or rank of the card on top of the
// pile), or pass.  The match ends after `setupData.moves` moves (200 unless the
// lobby asked for another number) or once the deck and every hand are empty;
// the most points wins.
//
// What is secret: the deck's order (in G.secret) and every hand (in G.players).
// PlayerView.STRIP_SECRETS takes G.secret out of every view and leaves each seat
// only its own entry of G.players, so the state a seat's socket receives holds
// its own hand and nothing else that is hidden.  Every move is `client: false`:
// it runs on the server only (a client could not draw from a deck it never
// sees), which also means the state a mover gets back is the server's answer.

const { INVALID_MOVE, PlayerView } = require('boardgame.io/core');

const NAME = 'peer-cards';
const SEATS = 3;
const HAND_LIMIT = 6;
const DEAL = 3;
const DEFAULT_MOVES = 200;

const suit = (card) => card % 4;
const rank = (card) => Math.floor(card / 4) % 13;

function setup({ ctx, random }, setupData) {
  const deck = random.Shuffle([...Array(104).keys()]);
  const players = {};
  const handCounts = {};
  const scores = {};
  for (const id of ctx.playOrder) {
    players[id] = { hand: deck.splice(0, DEAL) };
    handCounts[id] = DEAL;
    scores[id] = 0;
  }
  const limit = Number((setupData && setupData.moves) || DEFAULT_MOVES);
  return {
    secret: { deck },
    players,
    deckCount: deck.length, // public: how many cards are left, not which
    handCounts,             // public: how many cards each seat holds
    top: null,              // public: the card on top of the discard pile
    discarded: 0,
    scores,
    moves: 0,
    limit,
  };
}

function draw({ G, playerID }) {
  const hand = G.players[playerID].hand;
  if (G.secret.deck.length === 0 || hand.length >= HAND_LIMIT) return INVALID_MOVE;
  hand.push(G.secret.deck.pop());
  G.deckCount = G.secret.deck.length;
  G.handCounts[playerID] = hand.length;
  G.moves += 1;
}

function discard({ G, playerID }, index) {
  const hand = G.players[playerID].hand;
  if (!Number.isInteger(index) || index < 0 || index >= hand.length) return INVALID_MOVE;
  const [card] = hand.splice(index, 1);
  if (G.top !== null && (suit(card) === suit(G.top) || rank(card) === rank(G.top))) {
    G.scores[playerID] += 1;
  }
  G.top = card;
  G.discarded += 1;
  G.handCounts[playerID] = hand.length;
  G.moves += 1;
}

function pass({ G }) {
  G.moves += 1;
}

function endIf({ G }) {
  const emptyHands = Object.values(G.handCounts).every((n) => n === 0);
  if (G.moves < G.limit && !(G.deckCount === 0 && emptyHands)) return undefined;
  const best = Math.max(...Object.values(G.scores));
  return { winners: Object.keys(G.scores).filter((id) => G.scores[id] === best), scores: G.scores };
}

// What a seat may do, from its own (stripped) view: the drive picks from this.
function legalMoves(G, playerID) {
  const hand = (G.players[playerID] || { hand: [] }).hand;
  const options = [['pass', []]];
  if (G.deckCount > 0 && hand.length < HAND_LIMIT) options.push(['draw', []]);
  hand.forEach((_, index) => options.push(['discard', [index]]));
  return options;
}

const Game = {
  name: NAME,
  minPlayers: SEATS,
  maxPlayers: SEATS,
  setup,
  playerView: PlayerView.STRIP_SECRETS,
  turn: { minMoves: 1, maxMoves: 1 }, // one move, then the next seat
  moves: {
    draw: { move: draw, client: false },
    discard: { move: discard, client: false },
    pass: { move: pass, client: false },
  },
  endIf,
};

module.exports = { Game, legalMoves, NAME, SEATS, DEFAULT_MOVES };
