'use strict';
// The demo language client: starts server.js with node (the spawn
// broker: it needs the "spawn" capability and node among its programs),
// over stdio or, with the setting lspDemo.transport "ipc", forked with
// node's IPC channel, and forwards documents, completion and hover to it;
// the server's diagnostics go to a diagnostic collection.
const path = require('path');
const cp = require('child_process');
const vscode = require('vscode');

let server;
let lastId = 0;
const pending = new Map();

// The transport (setting lspDemo.transport): "stdio" (spawn, Content-Length
// framing) or "ipc" (fork, node's IPC channel).
let ipc = false;

function send(msg) {
  msg = Object.assign({ jsonrpc: '2.0' }, msg);
  if (ipc) { server.send(msg); return; }
  const body = Buffer.from(JSON.stringify(msg));
  server.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
  server.stdin.write(body);
}

function request(method, params) {
  const id = ++lastId;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    send({ id, method, params });
  });
}

const toRange = (r) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
const docParams = (doc) => ({ textDocument: { uri: doc.uri.toString(), languageId: doc.languageId, version: doc.version, text: doc.getText() } });

async function activate(context) {
  const diagnostics = vscode.languages.createDiagnosticCollection('lsp-demo');
  context.subscriptions.push(diagnostics);
  ipc = vscode.workspace.getConfiguration('lspDemo').get('transport') === 'ipc';
  const script = path.join(__dirname, 'server.js');
  server = ipc ? cp.fork(script, ['--node-ipc'], { silent: true }) : cp.spawn(process.execPath, [script, '--stdio']);
  if (!server.pid) throw new Error('the language server did not start');
  server.on('error', (err) => vscode.window.showErrorMessage(`lsp-demo server: ${err.message}`));
  const receive = (msg) => {
    if (msg.id !== undefined && pending.has(msg.id)) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(msg.error.message)); else p.resolve(msg.result);
    } else if (msg.method === 'textDocument/publishDiagnostics') {
      diagnostics.set(vscode.Uri.parse(msg.params.uri), msg.params.diagnostics.map((d) => {
        const diag = new vscode.Diagnostic(toRange(d.range), d.message, d.severity - 1);
        diag.source = d.source;
        return diag;
      }));
    }
  };
  if (ipc) server.on('message', receive);
  let buf = Buffer.alloc(0);
  if (!ipc) server.stdout.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const head = buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.slice(0, head).toString())[1]);
      if (buf.length < head + 4 + len) return;
      const msg = JSON.parse(buf.slice(head + 4, head + 4 + len).toString());
      buf = buf.slice(head + 4 + len);
      receive(msg);
    }
  });
  const init = await request('initialize', { processId: null, rootUri: null, capabilities: {} });
  send({ method: 'initialized', params: {} });
  const mine = (doc) => doc.languageId === 'lspdemo';
  for (const doc of vscode.workspace.textDocuments.filter(mine)) send({ method: 'textDocument/didOpen', params: docParams(doc) });
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument((doc) => mine(doc) && send({ method: 'textDocument/didOpen', params: docParams(doc) })),
    vscode.workspace.onDidChangeTextDocument((e) => mine(e.document) && send({ method: 'textDocument/didChange', params: { textDocument: { uri: e.document.uri.toString(), version: e.document.version }, contentChanges: [{ text: e.document.getText() }] } })),
    vscode.workspace.onDidCloseTextDocument((doc) => mine(doc) && send({ method: 'textDocument/didClose', params: { textDocument: { uri: doc.uri.toString() } } })),
    vscode.languages.registerCompletionItemProvider('lspdemo', {
      async provideCompletionItems(doc, pos) {
        const r = await request('textDocument/completion', { textDocument: { uri: doc.uri.toString() }, position: { line: pos.line, character: pos.character } });
        return r.items.map((i) => Object.assign(new vscode.CompletionItem(i.label, i.kind - 1), { detail: i.detail }));
      },
    }, '.'),
    vscode.languages.registerHoverProvider('lspdemo', {
      async provideHover(doc, pos) {
        const r = await request('textDocument/hover', { textDocument: { uri: doc.uri.toString() }, position: { line: pos.line, character: pos.character } });
        return r ? new vscode.Hover(new vscode.MarkdownString(r.contents.value), toRange(r.range)) : undefined;
      },
    }),
    vscode.commands.registerCommand('lspDemo.serverInfo', async () => {
      const s = await request('server/pid', {});
      return { name: init.serverInfo.name, pid: s.pid, transport: s.transport, clientPid: server.pid };
    }),
  );
}

async function deactivate() {
  if (!server) return;
  await request('shutdown', null);
  send({ method: 'exit' });
}

module.exports = { activate, deactivate };
