// Pythia's tablebase explorer: a board to set up positions, the tables' verdict from
// /standard (the lichess tablebase API's JSON) and every move coloured by its result.
// No libraries, nothing from the network but this server.
'use strict';

// ---- Pieces: small SVG drawings, white and black from the same shapes ----
const SHAPES = {
  p: '<circle cx="22.5" cy="13" r="5"/><path d="M16 33c1-7 3-11 6.5-13.5C26 22 28 26 29 33z"/><path d="M12 39c0-4 4-6 10.5-6S33 35 33 39z"/>',
  r: '<path d="M11 39h23v-4H11zM14 35l1.5-17h14L31 35zM12 14h4v3h3v-3h7v3h3v-3h4v5H12z"/>',
  n: '<path d="M12 39h22c0-7-1-13-4-19-2-4-5-7-9-9l-1 4-3 1c-3 3-6 7-6 10 0 2 2 3 4 2l4-3c1 3-1 6-4 9-2 2-3 4-3 5z"/><circle cx="18.5" cy="17.5" r="1.3" class="detail"/>',
  b: '<path d="M11 39h23c0-3-3-4-11.5-4S11 36 11 39z"/><path d="M16 34c-1-5 0-10 6.5-18 6.5 8 7.5 13 6.5 18z"/><circle cx="22.5" cy="10.5" r="3"/><path d="M20 25h5M22.5 22.5v5" class="detail-line"/>',
  q: '<path d="M11 39h23c0-3-2-5-2-5l3-15-6 9-2-12-4 11-4-11-2 12-6-9 3 15s-3 2-3 5z"/><circle cx="10" cy="18" r="2.3"/><circle cx="16" cy="14.5" r="2.3"/><circle cx="22.5" cy="12.5" r="2.3"/><circle cx="29" cy="14.5" r="2.3"/><circle cx="35" cy="18" r="2.3"/>',
  k: '<path d="M22.5 5v7M19 8.5h7" class="outline-line"/><path d="M11 39h23c0-3-2-5-2-5 4-3 6-7 4-11-2-4-8-4-13.5 1C17 19 11 19 9 23c-2 4 0 8 4 11 0 0-2 2-2 5z"/><path d="M22.5 24c-1-3-1-6 0-9 1 3 1 6 0 9z"/>',
};
function pieceSvg(p) {
  const white = p === p.toUpperCase();
  const fill = white ? '#fbfaf6' : '#2c2b29', stroke = white ? '#2c2b29' : '#0d0d0c', detail = white ? '#2c2b29' : '#e9e6de';
  return '<svg viewBox="0 0 45 45" xmlns="http://www.w3.org/2000/svg"><g fill="' + fill + '" stroke="' + stroke +
    '" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round">' +
    SHAPES[p.toLowerCase()].replace('class="detail"', 'fill="' + detail + '" stroke="none"')
      .replace('class="detail-line"', 'stroke="' + detail + '" fill="none"')
      .replace('class="outline-line"', 'stroke="' + stroke + '" stroke-width="2.2" fill="none"') +
    '</g></svg>';
}

// ---- Positions: FEN <-> board ----
const FILES = 'abcdefgh';
const sqName = i => FILES[i % 8] + (8 - Math.floor(i / 8));       // index 0 = a8 ... 63 = h1
const sqIndex = s => (8 - Number(s[1])) * 8 + FILES.indexOf(s[0]);

function parseFen(fen) {
  const f = fen.trim().split(/\s+/);
  const board = new Array(64).fill('');
  let i = 0;
  for (const c of (f[0] || '')) {
    if (c === '/') continue;
    if (/[1-8]/.test(c)) i += Number(c);
    else if (/[pnbrqkPNBRQK]/.test(c) && i < 64) board[i++] = c;
    else return null;
  }
  if (i !== 64) return null;
  return { board, turn: f[1] === 'b' ? 'b' : 'w', castling: f[2] || '-', ep: f[3] || '-',
           half: Number(f[4] || 0) || 0, full: Number(f[5] || 1) || 1 };
}

function toFen(p) {
  let s = '';
  for (let r = 0; r < 8; r++) {
    let empty = 0;
    for (let c = 0; c < 8; c++) {
      const x = p.board[r * 8 + c];
      if (!x) { empty++; continue; }
      if (empty) { s += empty; empty = 0; }
      s += x;
    }
    if (empty) s += empty;
    if (r < 7) s += '/';
  }
  return [s, p.turn, p.castling || '-', p.ep || '-', p.half, p.full].join(' ');
}

// Castling rights that the pieces still allow (an edited board may have moved king or rooks).
function fixCastling(p) {
  const need = { K: ['e1', 'h1', 'K', 'R'], Q: ['e1', 'a1', 'K', 'R'], k: ['e8', 'h8', 'k', 'r'], q: ['e8', 'a8', 'k', 'r'] };
  let c = '';
  for (const r of (p.castling === '-' ? '' : p.castling)) {
    const n = need[r];
    if (n && p.board[sqIndex(n[0])] === n[2] && p.board[sqIndex(n[1])] === n[3]) c += r;
  }
  p.castling = c || '-';
}

// The position after a legal move given in UCI (the server lists only legal moves).
function play(p, uci) {
  const q = { ...p, board: p.board.slice() };
  const from = sqIndex(uci.slice(0, 2)), to = sqIndex(uci.slice(2, 4));
  const piece = q.board[from], kind = piece.toLowerCase();
  const capture = q.board[to] !== '';
  let ep = '-';
  if (kind === 'p' && from % 8 !== to % 8 && !capture) q.board[to + (piece === 'P' ? 8 : -8)] = '';  // en passant
  if (kind === 'k' && Math.abs(from - to) === 2) {                                                 // castling
    const rookFrom = to > from ? from + 3 : from - 4, rookTo = to > from ? from + 1 : from - 1;
    q.board[rookTo] = q.board[rookFrom];
    q.board[rookFrom] = '';
  }
  q.board[to] = uci.length > 4 ? (piece === 'P' ? uci[4].toUpperCase() : uci[4]) : piece;
  q.board[from] = '';
  if (kind === 'p' && Math.abs(from - to) === 16) {
    const mid = (from + to) / 2, enemy = piece === 'P' ? 'p' : 'P';
    if ((to % 8 > 0 && q.board[to - 1] === enemy) || (to % 8 < 7 && q.board[to + 1] === enemy)) ep = sqName(mid);
  }
  q.ep = ep;
  q.half = kind === 'p' || capture ? 0 : p.half + 1;
  if (p.turn === 'b') q.full = p.full + 1;
  q.turn = p.turn === 'w' ? 'b' : 'w';
  fixCastling(q);
  return q;
}

// ---- State: the position, its history, the URL ----
const START = '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1';
let pos = parseFen(START);
let history = [toFen(pos)], at = 0, flipped = false, tool = null, lastMove = null;
let request = 0;

const $ = id => document.getElementById(id);
const urlFen = fen => fen.replace(/ /g, '_');

function commit(newPos, move) {           // a new position after the current one
  pos = newPos;
  lastMove = move || null;
  history = history.slice(0, at + 1);
  history.push(toFen(pos));
  at = history.length - 1;
  refresh(true);
}

function goTo(i) {
  if (i < 0 || i >= history.length) return;
  at = i;
  pos = parseFen(history[at]);
  lastMove = null;
  refresh(true);
}

function refresh(pushUrl) {
  const fen = toFen(pos);
  $('fen').value = fen;
  $('api-link').href = '/standard?fen=' + encodeURIComponent(urlFen(fen));
  $('api-link').textContent = '/standard?fen=' + urlFen(fen);
  if (pushUrl) {
    const url = '?fen=' + urlFen(fen);
    if (location.search !== url) window.history.pushState({ fen }, '', url);
  }
  $('back').disabled = at === 0;
  $('forward').disabled = at === history.length - 1;
  $('white-to-move').classList.toggle('active', pos.turn === 'w');
  $('black-to-move').classList.toggle('active', pos.turn === 'b');
  drawBoard();
  probe(fen);
}

// ---- The board and the palette ----
function drawBoard() {
  const board = $('board');
  board.innerHTML = '';
  for (let k = 0; k < 64; k++) {
    const i = flipped ? 63 - k : k;
    const sq = document.createElement('div');
    const r = Math.floor(i / 8), c = i % 8;
    sq.className = 'sq ' + ((r + c) % 2 ? 'dark' : 'light');
    sq.dataset.square = sqName(i);
    if (lastMove && (lastMove.slice(0, 2) === sqName(i) || lastMove.slice(2, 4) === sqName(i))) sq.classList.add(lastMove.slice(0, 2) === sqName(i) ? 'from' : 'to');
    if (k % 8 === 0) sq.insertAdjacentHTML('beforeend', '<span class="coord rank">' + (8 - r) + '</span>');
    if (k >= 56) sq.insertAdjacentHTML('beforeend', '<span class="coord file">' + FILES[c] + '</span>');
    if (pos.board[i]) {
      const el = document.createElement('div');
      el.className = 'piece';
      el.dataset.piece = pos.board[i];
      el.innerHTML = pieceSvg(pos.board[i]);
      sq.appendChild(el);
    }
    board.appendChild(sq);
  }
}

function drawPalette() {
  const pal = $('palette');
  pal.innerHTML = '';
  for (const p of 'KQRBNPkqrbnp'.split('').concat(['x'])) {
    const t = document.createElement('div');
    t.className = 'tool' + (tool === p ? ' selected' : '');
    t.dataset.tool = p;
    t.title = p === 'x' ? 'remove pieces' : (p === p.toUpperCase() ? 'white ' : 'black ') + { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' }[p.toLowerCase()];
    t.innerHTML = p === 'x' ? '&#10005;' : pieceSvg(p);
    pal.appendChild(t);
  }
}

function edited(p) {                       // a position set up by hand starts a fresh clock
  p.ep = '-';
  p.half = 0;
  fixCastling(p);
  commit(p);
}

// Dragging: from the board (move or remove a piece) or from the palette (add one).
let drag = null;
function squareAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const sq = el && el.closest('.sq');
  return sq ? sq.dataset.square : null;
}
document.addEventListener('pointerdown', e => {
  const pieceEl = e.target.closest('.board .piece');
  const toolEl = e.target.closest('.palette .tool');
  if (!pieceEl && !(toolEl && toolEl.dataset.tool !== 'x')) return;
  e.preventDefault();
  const piece = pieceEl ? pieceEl.dataset.piece : toolEl.dataset.tool;
  const from = pieceEl ? pieceEl.closest('.sq').dataset.square : null;
  const ghost = document.createElement('div');
  ghost.className = 'ghost';
  ghost.innerHTML = pieceSvg(piece);
  const size = $('board').clientWidth / 8;
  ghost.style.width = ghost.style.height = size + 'px';
  ghost.style.left = e.clientX + 'px';
  ghost.style.top = e.clientY + 'px';
  document.body.appendChild(ghost);
  if (pieceEl) pieceEl.style.opacity = '0.25';
  drag = { piece, from, ghost, moved: false, x: e.clientX, y: e.clientY, toolEl };
});
document.addEventListener('pointermove', e => {
  if (!drag) return;
  drag.ghost.style.left = e.clientX + 'px';
  drag.ghost.style.top = e.clientY + 'px';
  if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 4) drag.moved = true;
});
document.addEventListener('pointerup', e => {
  if (!drag) return;
  const d = drag;
  drag = null;
  d.ghost.remove();
  const to = squareAt(e.clientX, e.clientY);
  if (!d.moved) {                          // a click: pick a palette tool, or place/remove with it
    if (d.toolEl) { tool = tool === d.piece ? null : d.piece; drawPalette(); return; }
    if (tool && d.from) { placeWithTool(d.from); return; }
    drawBoard();
    return;
  }
  const p = { ...pos, board: pos.board.slice() };
  if (d.from) p.board[sqIndex(d.from)] = '';
  if (to) p.board[sqIndex(to)] = d.piece;
  if (d.from === to) { drawBoard(); return; }
  edited(p);
});
function placeWithTool(square) {
  const p = { ...pos, board: pos.board.slice() };
  const i = sqIndex(square);
  p.board[i] = tool === 'x' || p.board[i] === tool ? '' : tool;
  edited(p);
}
$('board').addEventListener('click', e => {
  const sq = e.target.closest('.sq');
  if (sq && tool && !sq.querySelector('.piece')) placeWithTool(sq.dataset.square);
});
$('palette').addEventListener('click', e => {
  const t = e.target.closest('.tool');
  if (t && t.dataset.tool === 'x') { tool = tool === 'x' ? null : 'x'; drawPalette(); }
});

// ---- What the tables cover (GET /tables) ----
let maxPieces = null;                     // the most pieces a loaded table holds
function coverageText(c) {
  const describe = list => list.map(e => e.pieces + ' pieces (' + (e.tables === e.of ? 'all ' : e.tables + ' of ') +
                                         e.of + ' tables)').join(', ');
  const parts = [];
  if (c.pythia.length) parts.push("Pythia's tables (WDL, DTZ50, DTM): " + describe(c.pythia));
  if (c.syzygy.length) parts.push('Syzygy files (WDL, DTZ50): ' + describe(c.syzygy));
  return parts.length ? 'Loaded: ' + parts.join('; ') + '.' : 'No tables loaded: every position is unknown.';
}
function loadCoverage() {
  fetch('/tables').then(res => res.json()).then(c => {
    maxPieces = c.max_pieces;
    $('coverage').textContent = coverageText(c);
    $('coverage').dataset.maxPieces = c.max_pieces;
  }).catch(() => { $('coverage').textContent = ''; });
}

// ---- The tables' answer ----
function movesText(plies) { const n = Math.ceil(plies / 2); return n + (n === 1 ? ' move' : ' moves'); }
const SIDE = { w: 'White', b: 'Black' };
const MOVER = { loss: 'win', 'blessed-loss': 'cursed-win', 'maybe-loss': 'maybe-win', 'syzygy-loss': 'maybe-win',
                draw: 'draw', 'cursed-win': 'blessed-loss', 'maybe-win': 'maybe-loss', 'syzygy-win': 'maybe-loss',
                win: 'loss', unknown: 'unknown' };

function verdictText(r) {
  const side = SIDE[pos.turn], other = SIDE[pos.turn === 'w' ? 'b' : 'w'];
  if (r.checkmate) return [other + ' wins: checkmate', ''];
  if (r.stalemate) return ['Draw: stalemate', ''];
  if (r.insufficient_material) return ['Draw: insufficient material', ''];
  const dtz = !r.dtz ? '' : 'DTZ50 ' + Math.abs(r.dtz) + (Math.abs(r.dtz) === 1 ? ' ply' : ' plies');
  // Syzygy files answer with DTZ alone: no precise DTZ, no DTM.
  const syzygy = r.dtz !== null && r.precise_dtz === null;
  const dtm = r.dtm === null ? (syzygy ? 'no mate distance (Syzygy files)' : 'DTM unknown')
            : r.dtm > 0 ? 'mate in ' + movesText(r.dtm) + ' (' + r.dtm + ' plies)'
            : r.dtm < 0 ? 'mated in ' + movesText(-r.dtm) + ' (' + -r.dtm + ' plies)' : '';
  const detail = [dtm, dtz].filter(Boolean).join(' \u00b7 ');
  switch (r.category) {
    case 'win': return [side + ' to move wins', detail];
    case 'cursed-win': return [side + ' to move has a cursed win', 'a win only without the 50-move rule \u00b7 ' + detail];
    case 'maybe-win': case 'syzygy-win': return [side + ' to move wins, if the 50-move rule allows', detail];
    case 'draw': return ['Draw', 'with best play by both sides'];
    case 'blessed-loss': return [side + ' to move has a blessed loss', 'the 50-move rule saves the draw \u00b7 ' + detail];
    case 'maybe-loss': case 'syzygy-loss': return [side + ' to move loses, unless the 50-move rule saves it', detail];
    case 'loss': return [side + ' to move loses', detail];
    default: return ['Unknown', pos.castling !== '-' ? 'the tables hold no positions with castling rights'
                                                     : 'no table for this position' +
                                                       (maxPieces ? ' (the tables hold up to ' + maxPieces + ' pieces)' : '')];
  }
}

function moveBadges(m, result) {
  const b = [];
  if (m.checkmate) b.push('checkmate');
  else if (m.stalemate) b.push('stalemate');
  else if (m.insufficient_material) b.push('insufficient material');
  else if (m.dtm !== null && m.dtm !== 0 && (result === 'win' || result === 'cursed-win' || result === 'maybe-win'))
    b.push('mate in ' + movesText(-m.dtm + 1));
  else if (m.dtm !== null && m.dtm !== 0) b.push('mated in ' + movesText(m.dtm));
  else if (result === 'draw') b.push('draw');
  else if (result === 'unknown') b.push('unknown');
  else b.push(result.replace('-', ' '));     // decided without a mate distance (Syzygy)
  const extra = [];                         // the distances of a decisive move
  if (m.dtm && !m.checkmate) extra.push('DTM ' + Math.abs(m.dtm));
  if (m.dtz && !m.checkmate) extra.push('DTZ ' + Math.abs(m.dtz));
  if (m.zeroing && !m.checkmate) extra.push(m.conversion ? 'capture or promotion' : 'pawn move');
  return [b, extra];
}

// A FEN that cannot be shown: the text stays in the box, the reason beside it.
function showFenError(text, message) {
  $('fen').value = text;
  $('fen-error').textContent = message;
  $('fen-error').hidden = false;
  $('verdict').dataset.category = 'error';
  $('verdict-main').innerHTML = '<span class="error">Not a legal position</span>';
  $('verdict-detail').textContent = message;
  $('moves').innerHTML = '';
}

function showAnswer(r) {
  $('fen-error').hidden = true;
  const v = $('verdict');
  v.dataset.category = r.category;
  const [main, detail] = verdictText(r);
  $('verdict-main').textContent = main;
  $('verdict-detail').textContent = detail || '\u00a0';
  const groups = [['Winning moves', ['win', 'maybe-win']], ['Cursed wins', ['cursed-win']], ['Drawing moves', ['draw']],
                  ['Blessed losses', ['blessed-loss']], ['Losing moves', ['loss', 'maybe-loss']], ['Unknown', ['unknown']]];
  const box = $('moves');
  box.innerHTML = '';
  for (const [title, results] of groups) {
    const ms = r.moves.filter(m => results.includes(MOVER[m.category]));
    if (!ms.length) continue;
    const g = document.createElement('div');
    g.className = 'group';
    g.innerHTML = '<h2>' + title + '</h2>';
    for (const m of ms) {
      const result = MOVER[m.category];
      const [main, extra] = moveBadges(m, result);
      const btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'move';
      btn.dataset.uci = m.uci;
      btn.dataset.result = result;
      btn.dataset.dtm = m.dtm === null ? '' : m.dtm;
      btn.dataset.dtz = m.dtz === null ? '' : m.dtz;
      btn.innerHTML = '<span class="san"></span><span class="badges"></span>';
      btn.querySelector('.san').textContent = m.san;
      const badges = btn.querySelector('.badges');
      for (const t of main) badges.insertAdjacentHTML('beforeend', '<span class="badge main">' + t + '</span>');
      for (const t of extra) badges.insertAdjacentHTML('beforeend', '<span class="badge">' + t + '</span>');
      btn.addEventListener('click', () => commit(play(pos, m.uci), m.uci));
      g.appendChild(btn);
    }
    box.appendChild(g);
  }
  if (!r.moves.length) box.innerHTML = '<p class="hint">No legal moves.</p>';
  document.body.dataset.ready = toFen(pos);  // for tests: the answer shown is this position's
}

function probe(fen) {
  const id = ++request;
  delete document.body.dataset.ready;
  fetch('/standard?fen=' + encodeURIComponent(urlFen(fen)))
    .then(res => res.json().then(body => ({ ok: res.ok, body })))
    .then(({ ok, body }) => {
      if (id !== request) return;
      if (!ok) {
        showFenError(fen, body.error || 'not a legal position');
        document.body.dataset.ready = toFen(pos);
        return;
      }
      showAnswer(body);
    })
    .catch(err => {
      if (id !== request) return;
      $('verdict-main').innerHTML = '<span class="error">The server does not answer</span>';
      $('verdict-detail').textContent = String(err);
    });
}

// ---- Controls ----
$('back').addEventListener('click', () => goTo(at - 1));
$('forward').addEventListener('click', () => goTo(at + 1));
$('flip').addEventListener('click', () => { flipped = !flipped; drawBoard(); });
$('clear').addEventListener('click', () => edited({ ...parseFen('4k3/8/8/8/8/8/8/4K3 w - - 0 1'), turn: pos.turn }));
$('white-to-move').addEventListener('click', () => { if (pos.turn !== 'w') edited({ ...pos, turn: 'w' }); });
$('black-to-move').addEventListener('click', () => { if (pos.turn !== 'b') edited({ ...pos, turn: 'b' }); });
$('fen-form').addEventListener('submit', e => {
  e.preventDefault();
  const text = $('fen').value;
  const p = parseFen(text.replace(/_/g, ' '));
  if (p) commit(p);
  else badFen(text);
});
document.addEventListener('keydown', e => {
  if (e.target.tagName === 'INPUT') return;
  if (e.key === 'ArrowLeft') goTo(at - 1);
  if (e.key === 'ArrowRight') goTo(at + 1);
});
window.addEventListener('popstate', () => {
  const p = parseFen(new URLSearchParams(location.search).get('fen')?.replace(/_/g, ' ') || START);
  if (!p) return;
  const fen = toFen(p), i = history.indexOf(fen);
  if (i >= 0) { at = i; pos = p; lastMove = null; refresh(false); }
  else { pos = p; history = [fen]; at = 0; refresh(false); }
});

// A FEN the page cannot read: the server says why (the API's own words), beside the box.
function badFen(text) {
  const id = ++request;
  delete document.body.dataset.ready;
  showFenError(text, 'not a FEN');
  fetch('/standard?fen=' + encodeURIComponent(urlFen(text)))
    .then(res => res.json().then(body => ({ ok: res.ok, body })))
    .then(({ ok, body }) => { if (id === request && !ok && body.error) showFenError(text, body.error); })
    .catch(() => {})
    .finally(() => { if (id === request) document.body.dataset.ready = 'error'; });
}

// ---- Start: the URL's position (a bad one: an empty board and the reason), or a pawn ending ----
(function start() {
  const q = new URLSearchParams(location.search).get('fen');
  const p = q ? parseFen(q.replace(/_/g, ' ')) : null;
  pos = p || parseFen(q ? '8/8/8/8/8/8/8/8 w - - 0 1' : START);
  history = [toFen(pos)];
  at = 0;
  drawPalette();
  loadCoverage();
  if (q && !p) {                           // the URL keeps the FEN given, so that it can be corrected
    drawBoard();
    $('back').disabled = $('forward').disabled = true;
    badFen(q.replace(/_/g, ' '));
    return;
  }
  refresh(false);
  window.history.replaceState({}, '', '?fen=' + urlFen(toFen(pos)));
})();
