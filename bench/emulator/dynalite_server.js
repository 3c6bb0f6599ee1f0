'use strict';
// The emulator in its own process: in memory, on 127.0.0.1, on a free port
// chosen by the kernel. Prints {"port": N} on its first line of output and
// exits when its parent closes stdin (or on SIGTERM).
const dynalite = require('dynalite');

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n');
});

function stop() {
  // dynalite's close waits for open keep-alive sockets; do not wait long
  setTimeout(() => process.exit(0), 2000).unref();
  server.close(() => process.exit(0));
}

process.stdin.resume();
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
