// Drives a UCI engine with node-uci, a client no one here wrote: the
// handshake, options, ucinewgame, then a game from the start position and
// one from a FEN whose searches cycle through "go" with clocks, "go
// movetime", and "go infinite" ended by "stop"; every bestmove must be legal
// for chess.js. Ends with "quit", which must end the process with status 0.
// The engine speaks on no error channel but "info string": any such line is
// a failure too.
//
// Usage: node uci-client.js ENGINE [PLIES]
// (node-uci starts ENGINE without arguments: pass a wrapper script.)
'use strict';
const { Engine } = require('node-uci');
const { Chess } = require('chess.js');

const enginePath = process.argv[2];
const plies = Number(process.argv[3] || 12);
if (!enginePath) {
  console.error('usage: node uci-client.js ENGINE [PLIES]');
  process.exit(2);
}
// Every step is bounded: a hung engine fails the test instead of hanging it.
const deadline = setTimeout(() => {
  console.error('uci-client: no answer within 120 s');
  process.exit(1);
}, 120000);

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// play checks bestmove against chess.js and makes it.
function play(chess, bestmove, how) {
  check(/^[a-h][1-8][a-h][1-8][qrbn]?$/.test(bestmove || ''), `${how}: bestmove ${bestmove} in ${chess.fen()}`);
  try {
    chess.move({ from: bestmove.slice(0, 2), to: bestmove.slice(2, 4), promotion: bestmove[4] });
  } catch (e) {
    throw new Error(`${how}: illegal bestmove ${bestmove} in ${chess.fen()}`);
  }
}

// goInfinite searches until stop; the engine must not answer before stop.
async function searchInfinite(engine) {
  let early = null;
  const emitter = engine.goInfinite();
  emitter.on('data', (d) => {
    if (d.bestmove && early === null) early = d.bestmove;
  });
  await sleep(200);
  check(early === null, `go infinite answered bestmove ${early} before stop`);
  const res = await engine.stop();
  return res.bestmove;
}

async function playGame(engine, startFen, counts) {
  const chess = startFen === 'startpos' ? new Chess() : new Chess(startFen);
  const moves = [];
  await engine.ucinewgame();
  for (let i = 0; i < plies && !chess.isGameOver(); i++) {
    await engine.position(startFen, moves);
    let bestmove;
    let how;
    switch (i % 3) {
      case 0:
        how = 'go wtime btime winc binc movestogo';
        bestmove = (await engine.go({ wtime: 5000 - 100 * i, btime: 5000 - 100 * i, winc: 50, binc: 50, movestogo: 20 })).bestmove;
        break;
      case 1:
        how = 'go movetime 50';
        bestmove = (await engine.go({ movetime: 50 })).bestmove;
        break;
      default:
        how = 'go infinite / stop';
        bestmove = await searchInfinite(engine);
    }
    play(chess, bestmove, how);
    moves.push(bestmove);
    counts[how] = (counts[how] || 0) + 1;
  }
  return moves.length;
}

async function main() {
  const engine = new Engine(enginePath);
  await engine.init();
  const errors = [];
  engine.proc.stdout.on('data', (chunk) => {
    for (const line of String(chunk).split('\n')) {
      if (line.startsWith('info string')) errors.push(line);
    }
  });
  check(/dchess/.test(engine.id.name || ''), `id name ${engine.id.name}`);
  check(engine.options.has('Hash') && engine.options.has('Depth'), `options ${[...engine.options.keys()]}`);
  await engine.setoption('Hash', 32);
  await engine.setoption('Depth', 3);
  await engine.isready();

  const counts = {};
  const fromStart = await playGame(engine, 'startpos', counts);
  // A middlegame position with castling rights on both sides.
  const fen = 'r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5';
  const fromFen = await playGame(engine, fen, counts);
  check(errors.length === 0, `the engine reported: ${errors.join(' | ')}`);

  const exit = new Promise((resolve) => engine.proc.once('exit', (code) => resolve(code)));
  await engine.quit();
  const code = await exit;
  check(code === 0, `quit: exit status ${code}`);
  console.log(JSON.stringify({ engine: engine.id.name, plies: fromStart + fromFen, searches: counts }));
}

main().then(
  () => {
    clearTimeout(deadline);
    process.exit(0);
  },
  (e) => {
    console.error(`uci-client: ${e.message}`);
    process.exit(1);
  },
);
