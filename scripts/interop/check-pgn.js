// Reads every game of the PGN files named on the command line with chess.js
// and checks what a reader outside dchess can check: the moves are legal,
// the Result tag matches the movetext's termination marker, PlyCount is the
// number of moves, and a game that ended by the rules ("Termination
// normal") is over on the board with the result the rules give.
// Prints {"games":[{"white","black","result","plies"}...]} per file, one
// JSON line each; any failure goes to stderr and exits 1.
'use strict';
const fs = require('fs');
const { Chess } = require('chess.js');

let failed = false;
function fail(where, msg) {
  failed = true;
  console.error(`${where}: ${msg}`);
}

// splitGames cuts a file at each [Event tag that starts a line after a blank line.
function splitGames(text) {
  return text.replace(/\r\n/g, '\n').split(/\n\s*\n(?=\[Event )/).map((g) => g.trim()).filter((g) => g !== '');
}

function ruleResult(chess) {
  if (chess.isCheckmate()) return chess.turn() === 'w' ? '0-1' : '1-0';
  if (chess.isStalemate() || chess.isInsufficientMaterial() || chess.isThreefoldRepetition() || chess.isDrawByFiftyMoves()) {
    return '1/2-1/2';
  }
  return null;
}

for (const file of process.argv.slice(2)) {
  const games = [];
  splitGames(fs.readFileSync(file, 'utf8')).forEach((text, i) => {
    const where = `${file} game ${i + 1}`;
    const chess = new Chess();
    try {
      chess.loadPgn(text);
    } catch (e) {
      fail(where, `chess.js cannot read it: ${e.message}`);
      return;
    }
    const tags = chess.getHeaders();
    const plies = chess.history().length;
    const marker = (text.match(/(1-0|0-1|1\/2-1\/2|\*)\s*$/) || [])[1];
    if (marker !== tags.Result) fail(where, `Result tag ${tags.Result}, termination marker ${marker}`);
    if (String(plies) !== tags.PlyCount) fail(where, `${plies} moves, PlyCount ${tags.PlyCount}`);
    const byRules = ruleResult(chess);
    if (byRules !== null && byRules !== tags.Result) fail(where, `the final position gives ${byRules}, Result is ${tags.Result}`);
    if (tags.Termination === 'normal' && byRules === null) fail(where, `Termination normal but the game is not over: ${chess.fen()}`);
    games.push({ white: tags.White, black: tags.Black, result: tags.Result, plies });
  });
  console.log(JSON.stringify({ file, games }));
}
process.exit(failed ? 1 : 0);
