// The runtime CodinGame gives its JavaScript bots, for a codingame-dialect bot run by node:
// the arena starts it as `node --require THIS_FILE bot.js` (docs/protocol.md, "CodinGame").
// CodinGame's JavaScript is node with three more globals, the functions of the JavaScript
// shells (d8, SpiderMonkey's js) its bots are written against:
//   readline()       the next line of the input, without its line end; null at its end
//   print(...args)   the arguments on a line of the output (as console.log)
//   printErr(...)    the same on stderr, the bot's debug output (as console.error)
// A global the bot defines itself is left as it is.
'use strict';

const fs = require('fs');

const CHUNK = 65536;
let pending = Buffer.alloc(0);   // read from fd 0, not yet returned as a line
let ended = false;

// Wait a millisecond without spinning: a read that would block on a non-blocking stdin
// (the bot touched process.stdin as well) is tried again after it.
const pause = new Int32Array(new SharedArrayBuffer(4));

function readChunk() {
  const chunk = Buffer.alloc(CHUNK);
  for (;;) {
    try {
      const read = fs.readSync(0, chunk, 0, CHUNK, null);
      return read === 0 ? null : chunk.subarray(0, read);
    } catch (error) {
      if (error.code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 1);
      } else if (error.code === 'EOF') {
        return null;
      } else {
        throw error;
      }
    }
  }
}

function readline() {
  for (;;) {
    const end = pending.indexOf(10);
    if (end >= 0) {
      const line = pending.subarray(0, end).toString('utf8');
      pending = pending.subarray(end + 1);
      return line.endsWith('\r') ? line.slice(0, -1) : line;
    }
    if (ended) {
      if (pending.length === 0) {
        return null;
      }
      const last = pending.toString('utf8');   // a last line without its line end
      pending = Buffer.alloc(0);
      return last;
    }
    const chunk = readChunk();
    if (chunk === null) {
      ended = true;
    } else {
      pending = Buffer.concat([pending, chunk]);
    }
  }
}

function define(name, value) {
  if (!(name in globalThis)) {
    Object.defineProperty(globalThis, name, {value, writable: true, configurable: true});
  }
}

define('readline', readline);
define('print', (...args) => console.log(...args));
define('printErr', (...args) => console.error(...args));
