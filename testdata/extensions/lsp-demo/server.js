'use strict';
// The demo language server: the Language Server Protocol over stdio
// (Content-Length framed JSON-RPC). It knows the words of each open
// document; completion offers them, hover names the word and how often it
// occurs, and every line holding "bad" gets an error diagnostic.
const docs = new Map(); // uri -> text

// With --node-ipc the messages go over node's IPC channel (the client
// forked this server), else over stdio with Content-Length framing.
const ipc = process.argv.includes('--node-ipc');

function send(msg) {
  msg = Object.assign({ jsonrpc: '2.0' }, msg);
  if (ipc) { process.send(msg); return; }
  const body = Buffer.from(JSON.stringify(msg));
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function receive(msg) {
  if (msg.id !== undefined && handlers[msg.method]) send({ id: msg.id, result: handlers[msg.method](msg.params || {}) });
  else if (msg.id !== undefined) send({ id: msg.id, error: { code: -32601, message: `no method ${msg.method}` } });
  else if (notifications[msg.method]) notifications[msg.method](msg.params || {});
}

function diagnose(uri) {
  const lines = (docs.get(uri) || '').split('\n');
  const diagnostics = [];
  lines.forEach((l, i) => {
    const at = l.indexOf('bad');
    if (at >= 0) diagnostics.push({ range: { start: { line: i, character: at }, end: { line: i, character: at + 3 } }, severity: 1, source: 'lsp-demo', message: `"bad" on line ${i + 1}` });
  });
  send({ method: 'textDocument/publishDiagnostics', params: { uri, diagnostics } });
}

function wordAt(uri, pos) {
  const line = (docs.get(uri) || '').split('\n')[pos.line] || '';
  let s = pos.character, e = pos.character;
  while (s > 0 && /\w/.test(line[s - 1])) s--;
  while (e < line.length && /\w/.test(line[e])) e++;
  return s < e ? { word: line.slice(s, e), range: { start: { line: pos.line, character: s }, end: { line: pos.line, character: e } } } : null;
}

const handlers = {
  initialize: () => ({ capabilities: { textDocumentSync: 1, completionProvider: { triggerCharacters: ['.'] }, hoverProvider: true }, serverInfo: { name: 'lsp-demo-server', version: '1.0.0' } }),
  'textDocument/completion': (p) => {
    const words = [...new Set((docs.get(p.textDocument.uri) || '').match(/[A-Za-z_]\w*/g) || [])].sort();
    return { isIncomplete: false, items: words.map((w) => ({ label: w, kind: 1, detail: 'a word of this document' })) };
  },
  'textDocument/hover': (p) => {
    const w = wordAt(p.textDocument.uri, p.position);
    if (!w) return null;
    const n = ((docs.get(p.textDocument.uri) || '').match(new RegExp(`\\b${w.word}\\b`, 'g')) || []).length;
    return { contents: { kind: 'markdown', value: `**${w.word}** occurs ${n} time(s)` }, range: w.range };
  },
  'server/pid': () => ({ pid: process.pid, transport: ipc ? 'ipc' : 'stdio' }),
  shutdown: () => null,
};

const notifications = {
  'textDocument/didOpen': (p) => { docs.set(p.textDocument.uri, p.textDocument.text); diagnose(p.textDocument.uri); },
  'textDocument/didChange': (p) => { docs.set(p.textDocument.uri, p.contentChanges[p.contentChanges.length - 1].text); diagnose(p.textDocument.uri); },
  'textDocument/didClose': (p) => { docs.delete(p.textDocument.uri); },
  exit: () => process.exit(0),
};

if (ipc) {
  process.on('message', receive);
  process.on('disconnect', () => process.exit(0));
}

let buf = Buffer.alloc(0);
if (!ipc) process.stdin.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const head = buf.indexOf('\r\n\r\n');
    if (head < 0) return;
    const m = /Content-Length: (\d+)/i.exec(buf.slice(0, head).toString());
    const len = m ? Number(m[1]) : 0;
    if (buf.length < head + 4 + len) return;
    const msg = JSON.parse(buf.slice(head + 4, head + 4 + len).toString());
    buf = buf.slice(head + 4 + len);
    receive(msg);
  }
});
if (!ipc) process.stdin.on('end', () => process.exit(0));
