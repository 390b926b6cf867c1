'use strict';
// Tests of the host's editor model (js/documents.js, js/languages.js,
// js/window.js, js/workspace.js) on the real registry of js/extensions.js
// with a host that records what it would send, run by editor_test.go as:
// node editor.test.js /abs/path/to/js
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { AsyncLocalStorage } = require('node:async_hooks');

const dir = process.argv[2];
const { Position, Range, TextEdit, Uri, WorkspaceEdit, SnippetString, CompletionItem } = require(path.join(dir, 'types.js'));
const { expandSnippet } = require(path.join(dir, 'documents.js'));
const { globRegExp, score } = require(path.join(dir, 'languages.js'));

// newHost is a host whose sends are recorded; answers answers requests.
function newHost(answers) {
  const sent = { events: [], requests: [] };
  const host = {
    als: new AsyncLocalStorage(),
    emit: (ext, kind, f) => sent.events.push(Object.assign({ kind, extension: ext ? ext.id : undefined }, f)),
    notify() {},
    request: async (method, params) => { sent.requests.push({ method, params }); return answers ? answers(method, params) : null; },
    reallyExit() {},
  };
  return { host, sent };
}

// Every registry's storage is made under one directory, removed when the
// tests end (they left one directory in the system's temp per test).
const storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'airvsx-editor-test-'));
process.on('exit', () => fs.rmSync(storageRoot, { recursive: true, force: true }));

async function registry(answers, extensions) {
  const { host, sent } = newHost(answers);
  const reg = require(path.join(dir, 'extensions.js'))(host);
  const storage = fs.mkdtempSync(path.join(storageRoot, 'storage-'));
  await reg.init({ extensions: extensions || [], storageDir: storage, workspaceFolders: ['/ws'] });
  const ext = { id: 'test.ext', dir: storage, desc: { id: 'test.ext', packageJSON: {} }, caps: new Set(), storage: { global: storage, workspace: storage, log: storage }, state: 'active' };
  const vscode = require(path.join(dir, 'vscode.js'))(ext, reg);
  return { reg, sent, vscode, ext };
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('a document maps offsets, positions and lines, \\n, \\r\\n and \\r alike', async () => {
  const { reg } = await registry();
  const d = reg.documents.openFromLauncher({ uri: 'file:///ws/a.txt', languageId: 'plaintext', text: 'one\r\ntwo\nthree\rfour' });
  assert.equal(d.lineCount, 4);
  assert.deepEqual([0, 1, 2, 3].map((i) => d.lineAt(i).text), ['one', 'two', 'three', 'four']);
  assert.equal(d.offsetAt(new Position(1, 1)), 6);
  assert.deepEqual(d.positionAt(6), new Position(1, 1));
  assert.deepEqual(d.positionAt(4), new Position(0, 3)); // inside \r\n: the end of the line
  assert.deepEqual(d.positionAt(1e9), new Position(3, 4));
  assert.deepEqual(d.validatePosition(new Position(9, 9)), new Position(3, 4));
  assert.deepEqual(d.validatePosition(new Position(0, 99)), new Position(0, 3));
  assert.equal(d.getText(new Range(0, 1, 2, 2)), 'ne\r\ntwo\nth');
  assert.throws(() => d.lineAt(4), /Illegal value for `line`/);
  const l = d.lineAt(0);
  assert.deepEqual(l.rangeIncludingLineBreak, new Range(0, 0, 1, 0));
  assert.deepEqual(d.lineAt(3).rangeIncludingLineBreak, new Range(3, 0, 3, 4));
  assert.deepEqual(d.getWordRangeAtPosition(new Position(2, 2)), new Range(2, 0, 2, 5));
  assert.equal(d.getWordRangeAtPosition(new Position(0, 3), /x+/), undefined);
  assert.equal(d.fileName, '/ws/a.txt');
});

test('edits apply at once, against the text before them, and refuse overlaps', async () => {
  const { reg, sent } = await registry();
  const d = reg.documents.openFromLauncher({ uri: 'file:///ws/b.txt', languageId: 'plaintext', text: 'abc\ndef\n' });
  const changes = [];
  reg.documents.events.change.event(null)((e) => changes.push(e));
  reg.documents.apply(d, [TextEdit.insert(new Position(0, 0), '>'), TextEdit.replace(new Range(1, 0, 1, 3), 'DEF'), TextEdit.delete(new Range(0, 1, 0, 2))], 'test');
  assert.equal(d.getText(), '>acDEF\n'.replace('DEF', '\nDEF'));
  assert.equal(d.version, 2);
  assert.equal(d.isDirty, true);
  assert.equal(changes.length, 1);
  assert.equal(changes[0].contentChanges.length, 3);
  const edit = sent.events.find((e) => e.kind === 'edit');
  assert.equal(edit.uri, 'file:///ws/b.txt');
  assert.equal(edit.data.version, 2);
  assert.equal(edit.data.edits.length, 3);
  assert.throws(() => reg.documents.apply(d, [TextEdit.replace(new Range(0, 0, 0, 3), 'x'), TextEdit.replace(new Range(0, 2, 0, 4), 'y')], 'test'), /overlapping/);
  assert.equal(d.version, 2, 'a refused edit changes nothing');
  // A change from the launcher is not reported back to it.
  const before = sent.events.length;
  reg.documents.apply(d, [TextEdit.insert(new Position(0, 0), '!')], 'launcher');
  assert.equal(sent.events.filter((e) => e.kind === 'edit').length, sent.events.slice(0, before).filter((e) => e.kind === 'edit').length);
});

test('a huge edit is reported as full, not carried', async () => {
  const { reg, sent } = await registry();
  const d = reg.documents.openFromLauncher({ uri: 'file:///ws/c.txt', languageId: 'plaintext', text: '' });
  reg.documents.apply(d, [TextEdit.insert(new Position(0, 0), 'x'.repeat(100000))], 'test');
  const edit = sent.events.find((e) => e.kind === 'edit');
  assert.deepEqual(edit.data, { version: 2, full: true });
});

test('snippets insert their defaults', () => {
  assert.equal(expandSnippet('${1:name} {\n\t$0\n}'), 'name {\n\t\n}');
  assert.equal(expandSnippet('Good ${1|morning,afternoon|}. It is ${1}, right?'), 'Good morning. It is , right?');
  assert.equal(expandSnippet('a\\$b ${2:x ${3:y}} $TM_FILENAME ${TM_X:def}'), 'a$b x y  def');
  const s = new SnippetString().appendText('$1 {').appendPlaceholder('v');
  assert.equal(expandSnippet(s.value), '$1 {v');
});

test('selectors score as vscode.languages.match does', async () => {
  const { reg } = await registry();
  const d = reg.documents.openFromLauncher({ uri: 'file:///ws/src/x.demo', languageId: 'demo', text: '' });
  assert.equal(score('demo', d), 10);
  assert.equal(score('*', d), 5);
  assert.equal(score('other', d), 0);
  assert.equal(score({ language: 'demo', scheme: 'file' }, d), 10);
  assert.equal(score({ language: 'demo', scheme: 'untitled' }, d), 0);
  assert.equal(score({ pattern: '**/*.demo' }, d), 5);
  assert.equal(score({ pattern: '**/*.txt' }, d), 0);
  assert.equal(score(['other', { language: 'demo' }], d), 10);
  assert.equal(score({ notebookType: 'x', language: 'demo' }, d), 0);
  assert.ok(globRegExp('**/*.{js,ts}').test('a/b/c.ts'));
  assert.ok(!globRegExp('*.js').test('a/c.js'));
  assert.ok(globRegExp('src/[ab].js').test('src/a.js'));
});

test('providers answer as JSON, best match first, a throwing one reported', async () => {
  const { reg, sent, vscode } = await registry();
  reg.documents.openFromLauncher({ uri: 'file:///ws/p.demo', languageId: 'demo', text: 'hello world' });
  vscode.languages.registerCompletionItemProvider('*', { provideCompletionItems: () => [new CompletionItem('star')] });
  vscode.languages.registerCompletionItemProvider('demo', { provideCompletionItems: () => ({ items: [Object.assign(new CompletionItem('snip'), { insertText: new SnippetString('x$1') })], isIncomplete: false }) });
  vscode.languages.registerCompletionItemProvider('demo', { provideCompletionItems: () => { throw new Error('boom'); } });
  vscode.languages.registerCompletionItemProvider('other', { provideCompletionItems: () => [new CompletionItem('never')] });
  const r = await reg.languages.provide({ kind: 'completion', uri: 'file:///ws/p.demo', position: { line: 0, character: 1 } });
  assert.deepEqual(r.items.map((i) => i.label), ['snip', 'star']);
  assert.equal(r.items[0].insertTextFormat, 'snippet');
  assert.equal(r.items[0].insertText, 'x$1');
  assert.equal(r.providers, 3);
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0].message, /boom/);
  assert.ok(sent.events.some((e) => e.kind === 'error' && /provideCompletionItems: Error: boom/.test(e.text)));
  await assert.rejects(reg.languages.provide({ kind: 'completion', uri: 'file:///ws/closed.demo' }), /is not open/);
});

test('diagnostic collections publish, replace and clear', async () => {
  const { reg, sent, vscode } = await registry();
  const c = vscode.languages.createDiagnosticCollection('lint');
  const u = Uri.parse('file:///ws/d.demo');
  c.set(u, [new vscode.Diagnostic(new Range(0, 0, 0, 1), 'one'), new vscode.Diagnostic(new Range(1, 0, 1, 1), 'two', vscode.DiagnosticSeverity.Hint)]);
  assert.deepEqual(reg.languages.diagnostics().map((x) => x.diagnostics.map((d) => [d.message, d.severity])), [[['one', 0], ['two', 3]]]);
  assert.equal(vscode.languages.getDiagnostics(u).length, 2);
  c.set(u, [new vscode.Diagnostic(new Range(0, 0, 0, 1), 'only')]);
  assert.deepEqual(reg.languages.diagnostics('file:///ws/d.demo')[0].diagnostics.map((d) => d.message), ['only']);
  c.clear();
  assert.deepEqual(reg.languages.diagnostics(), []);
  const published = sent.events.filter((e) => e.kind === 'diagnostics');
  assert.deepEqual(published.map((e) => e.data.count), [2, 1, 0]);
  assert.ok(published.every((e) => e.name === 'lint' && e.uri === 'file:///ws/d.demo'));
});

test('quick picks and input boxes go to the launcher; answers are checked', async () => {
  const answers = [{ selected: [2] }, { selected: [7] }, null, { value: '' }, { value: 'ok' }, { selected: [0, 1] }];
  const { sent, vscode } = await registry(() => answers.shift());
  assert.equal(await vscode.window.showQuickPick(['a', 'b', 'c']), 'c');
  assert.equal(await vscode.window.showQuickPick(['a', 'b', 'c']), undefined, 'an index out of range is no answer');
  assert.equal(await vscode.window.showQuickPick(['a']), undefined, 'dismissed');
  assert.equal(await vscode.window.showInputBox({ validateInput: (v) => (v ? null : 'empty') }), 'ok');
  const asked = sent.requests.filter((r) => r.method === 'ui/inputBox');
  assert.equal(asked.length, 2);
  assert.equal(asked[1].params.validationMessage, 'empty');
  assert.deepEqual((await vscode.window.showQuickPick([{ label: 'x' }, { label: 'y' }], { canPickMany: true })).map((i) => i.label), ['x', 'y']);
  assert.equal(sent.requests[0].params.extension, 'test.ext');
});

test('createQuickPick fires selection and accept, or hide when dismissed', async () => {
  const answers = [{ selected: [1] }, null];
  const { vscode } = await registry(() => answers.shift());
  const qp = vscode.window.createQuickPick();
  qp.items = [{ label: 'one' }, { label: 'two' }];
  const got = await new Promise((resolve) => { qp.onDidAccept(() => resolve(qp.selectedItems.map((i) => i.label))); qp.show(); });
  assert.deepEqual(got, ['two']);
  qp.hide();
  const qp2 = vscode.window.createQuickPick();
  qp2.items = [{ label: 'one' }];
  await new Promise((resolve) => { qp2.onDidHide(resolve); qp2.show(); });
});

test('workspace.applyEdit edits documents, left unsaved', async () => {
  const files = { '/ws/e.txt': 'alpha beta\n' };
  const { reg, vscode } = await registry((method, p) => (method === 'fs/readFile' ? { data: Buffer.from(files[p.path]).toString('base64') } : null));
  const we = new WorkspaceEdit();
  const u = Uri.file('/ws/e.txt');
  we.replace(u, new Range(0, 0, 0, 5), 'gamma');
  we.insert(u, new Position(0, 10), '!');
  assert.equal(await vscode.workspace.applyEdit(we), true);
  const d = reg.documents.get(u);
  assert.equal(d.getText(), 'gamma beta!\n');
  assert.equal(d.isDirty, true);
});

test('an extension may not take over the editor\'s own commands', async () => {
  const { vscode } = await registry();
  assert.throws(() => vscode.commands.registerCommand('vscode.open', () => {}), /is the editor's own/);
  assert.throws(() => vscode.commands.registerCommand('vscode.executeFormatDocumentProvider', () => {}), /is the editor's own/);
});

test('tree views: items by handle, another extension may not take a view', async () => {
  const { reg, vscode } = await registry();
  const data = { a: ['a1', 'a2'], a1: [], a2: [] };
  vscode.window.createTreeView('v', { treeDataProvider: { getChildren: (e) => (e ? data[e] : ['a']), getTreeItem: (e) => new vscode.TreeItem(e, data[e].length ? 1 : 0) } });
  const roots = await reg.window.children({ view: 'v' });
  assert.deepEqual(roots.items.map((i) => [i.label, i.collapsibleState]), [['a', 1]]);
  const kids = await reg.window.children({ view: 'v', handle: roots.items[0].handle });
  assert.deepEqual(kids.items.map((i) => i.label), ['a1', 'a2']);
  await assert.rejects(reg.window.children({ view: 'v', handle: '999' }), /no item 999/);
  const other = { id: 'other.ext' };
  assert.throws(() => reg.window.api(other, vscode).createTreeView('v', { treeDataProvider: { getChildren: () => [] } }), /registered by test.ext/);
});

(async () => {
  let failed = 0;
  for (const t of tests) {
    try {
      await t.fn();
    } catch (err) {
      failed++;
      console.log(`FAIL ${t.name}\n${err && err.stack || err}`);
    }
  }
  console.log(`editor: ${tests.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})();
