// The peer server for `python -m bench peer`: boardgame.io 0.50 serving game.js,
// its lobby API and socket.io transport on one port, storing matches in
// PostgreSQL through bgio-postgres.
//
//   PEER_DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_peer_x \
//     node server.js <port>        (or PEER_PORT=<port>)
//
// bgio-postgres always names its table "Games" (sequelize, synced on start), so
// the bench gives it a database of its own, created for the run and dropped after.
// Sequelize's per-query console logging is off (it is a development aid, and it
// would bill the peer for printing every SQL statement); its pool keeps the
// default five connections but does not close idle ones, so the bench can read
// the CPU time of the PostgreSQL backends serving the run.  Run it with
// NODE_ENV=production, as one would deploy it.

const { Server, Origins } = require('boardgame.io/server');
const { PostgresStore } = require('bgio-postgres');
const { Game } = require('./game');

const port = Number(process.argv[2] || process.env.PEER_PORT || 8000);
const url = process.env.PEER_DATABASE_URL;
if (!url) {
  console.error('server.js: set PEER_DATABASE_URL (postgres://user@host:port/database)');
  process.exit(2);
}

const db = new PostgresStore(url, {
  logging: false,
  pool: { max: 5, min: 0, idle: 3600 * 1000 },
});
const server = Server({ games: [Game], db, origins: [Origins.LOCALHOST] });

server.run({ port, callback: () => console.log(`peer server listening on ${port}`) }).then(
  (servers) => {
    const stop = async () => {
      server.kill(servers);
      await db.sequelize.close();
      process.exit(0);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  },
  (err) => {
    console.error('server.js: could not start:', err);
    process.exit(1);
  },
);
