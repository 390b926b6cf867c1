'use strict';
// Tests of js/types.js (the vscode API's classes and enums), run by
// types_test.go as: node types.test.js /abs/path/to/js/types.js
const assert = require('node:assert/strict');

const vscode = require(process.argv[2]);
const {
  Position, Range, Selection, Location, Uri, Disposable, EventEmitter, CancellationTokenSource, CancellationError,
  TextEdit, WorkspaceEdit, SnippetString, MarkdownString, CodeActionKind, SemanticTokensBuilder, SemanticTokensLegend,
  FileSystemError, TreeItem, TreeItemCollapsibleState,
} = vscode;

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('Position validates and compares', () => {
  assert.throws(() => new Position(-1, 0), /line must be non-negative/);
  assert.throws(() => new Position(0, -1), /character must be non-negative/);
  assert.throws(() => new Position('1', 0));
  const p = new Position(1, 5);
  assert.equal(p.line, 1);
  assert.equal(p.character, 5);
  assert.throws(() => { p.line = 3; }, TypeError);
  assert.equal(p.line, 1);
  const before = new Position(1, 4);
  const after = new Position(2, 0);
  assert.ok(before.isBefore(p) && !p.isBefore(p) && !after.isBefore(p));
  assert.ok(p.isBeforeOrEqual(p) && before.isBeforeOrEqual(p) && !after.isBeforeOrEqual(p));
  assert.ok(after.isAfter(p) && !p.isAfter(p) && !before.isAfter(p));
  assert.ok(p.isAfterOrEqual(p) && after.isAfterOrEqual(p) && !before.isAfterOrEqual(p));
  assert.ok(p.isEqual(new Position(1, 5)) && !p.isEqual(before));
  assert.ok(p.compareTo(before) > 0 && p.compareTo(after) < 0 && p.compareTo(new Position(1, 5)) === 0);
  assert.ok(new Position(0, 99).compareTo(new Position(1, 0)) < 0, 'the line decides first');
  assert.deepEqual(JSON.parse(JSON.stringify(p)), { line: 1, character: 5 });
  assert.ok(Position.isPosition({ line: 1, character: 2 }) && !Position.isPosition({ line: 1 }) && !Position.isPosition(undefined));
});

test('Position.translate and with', () => {
  const p = new Position(1, 5);
  assert.equal(p.translate(), p);
  assert.equal(p.translate(0, 0), p);
  assert.equal(p.translate({}), p);
  assert.deepEqual(p.translate(1).toJSON(), { line: 2, character: 5 });
  assert.deepEqual(p.translate(1, -2).toJSON(), { line: 2, character: 3 });
  assert.deepEqual(p.translate({ characterDelta: 1 }).toJSON(), { line: 1, character: 6 });
  assert.deepEqual(p.translate({ lineDelta: -1 }).toJSON(), { line: 0, character: 5 });
  assert.throws(() => p.translate(-2), /non-negative/);
  assert.throws(() => p.translate(null));
  assert.equal(p.with(), p);
  assert.equal(p.with(1, 5), p);
  assert.deepEqual(p.with(3).toJSON(), { line: 3, character: 5 });
  assert.deepEqual(p.with(undefined, 0).toJSON(), { line: 1, character: 0 });
  assert.deepEqual(p.with({ character: 9 }).toJSON(), { line: 1, character: 9 });
  assert.deepEqual(p.with({ line: 0 }).toJSON(), { line: 0, character: 5 });
  assert.throws(() => p.with(-1));
  assert.throws(() => p.with(null));
  assert.ok(p.translate(1) instanceof Position);
});

test('Range constructs, swaps and validates', () => {
  const r = new Range(1, 2, 3, 4);
  assert.deepEqual([r.start.line, r.start.character, r.end.line, r.end.character], [1, 2, 3, 4]);
  const swapped = new Range(new Position(3, 4), new Position(1, 2));
  assert.ok(swapped.start.isEqual(new Position(1, 2)) && swapped.end.isEqual(new Position(3, 4)));
  assert.ok(swapped.isEqual(r));
  assert.throws(() => new Range(1, 2, 3));
  assert.throws(() => new Range(undefined, new Position(0, 0)), /Invalid arguments/);
  assert.throws(() => new Range(-1, 0, 0, 0));
  assert.throws(() => { r.start = new Position(0, 0); }, TypeError);
  assert.ok(new Range(1, 1, 1, 1).isEmpty && !r.isEmpty);
  assert.ok(new Range(2, 0, 2, 9).isSingleLine && !r.isSingleLine);
  assert.ok(Range.isRange({ start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }));
  assert.ok(!Range.isRange({ start: { line: 0, character: 0 } }) && !Range.isRange(null));
  assert.deepEqual(JSON.parse(JSON.stringify(r)), [{ line: 1, character: 2 }, { line: 3, character: 4 }]);
});

test('Range.contains', () => {
  const r = new Range(1, 2, 3, 4);
  assert.ok(r.contains(new Position(1, 2)) && r.contains(new Position(3, 4)) && r.contains(new Position(2, 0)));
  assert.ok(!r.contains(new Position(1, 1)) && !r.contains(new Position(3, 5)) && !r.contains(new Position(0, 9)));
  assert.ok(r.contains(r) && r.contains(new Range(2, 0, 3, 4)));
  assert.ok(!r.contains(new Range(0, 0, 2, 0)) && !r.contains(new Range(2, 0, 4, 0)));
  assert.ok(!r.contains('nonsense'));
});

test('Range.intersection and union edge cases', () => {
  const a = new Range(1, 0, 3, 0);
  assert.ok(a.intersection(new Range(2, 0, 5, 0)).isEqual(new Range(2, 0, 3, 0)));
  assert.ok(a.intersection(new Range(2, 0, 2, 5)).isEqual(new Range(2, 0, 2, 5)), 'contained');
  const touch = a.intersection(new Range(3, 0, 4, 0));
  assert.ok(touch && touch.isEmpty && touch.start.isEqual(new Position(3, 0)), 'touching ranges meet in an empty range');
  assert.equal(a.intersection(new Range(3, 1, 4, 0)), undefined, 'disjoint');
  assert.equal(a.intersection(new Range(0, 0, 0, 9)), undefined, 'disjoint before');
  assert.equal(a.union(new Range(2, 0, 2, 1)), a, 'union with a contained range is this range');
  const inner = new Range(2, 0, 2, 1);
  assert.equal(inner.union(a), a, 'union with a containing range is that range');
  assert.ok(a.union(new Range(5, 0, 6, 0)).isEqual(new Range(1, 0, 6, 0)), 'a gap is covered');
  assert.ok(a.union(new Range(0, 0, 2, 0)).isEqual(new Range(0, 0, 3, 0)));
});

test('Range.with', () => {
  const r = new Range(1, 0, 3, 0);
  assert.equal(r.with(), r);
  assert.equal(r.with(new Position(1, 0)), r);
  assert.equal(r.with({}), r);
  assert.ok(r.with(new Position(0, 0)).isEqual(new Range(0, 0, 3, 0)));
  assert.ok(r.with(undefined, new Position(4, 0)).isEqual(new Range(1, 0, 4, 0)));
  assert.ok(r.with({ end: new Position(2, 0) }).isEqual(new Range(1, 0, 2, 0)));
  assert.ok(r.with({ start: new Position(2, 0) }).isEqual(new Range(2, 0, 3, 0)));
  assert.ok(r.with(new Position(5, 0)).isEqual(new Range(3, 0, 5, 0)), 'start past end swaps');
  assert.throws(() => r.with(null));
  assert.throws(() => r.with(undefined, null));
});

test('Selection anchor, active and isReversed', () => {
  const fwd = new Selection(1, 0, 2, 0);
  assert.ok(fwd instanceof Range && fwd instanceof Selection);
  assert.ok(!fwd.isReversed && fwd.anchor.isEqual(fwd.start) && fwd.active.isEqual(fwd.end));
  const back = new Selection(new Position(2, 0), new Position(1, 0));
  assert.ok(back.isReversed);
  assert.ok(back.anchor.isEqual(new Position(2, 0)) && back.active.isEqual(new Position(1, 0)));
  assert.ok(back.start.isEqual(new Position(1, 0)) && back.end.isEqual(new Position(2, 0)));
  assert.ok(!new Selection(1, 1, 1, 1).isReversed);
  assert.throws(() => new Selection(1, 1), /Invalid arguments/);
  assert.ok(Selection.isSelection(back) && !Selection.isSelection(new Range(0, 0, 0, 0)));
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(back))).sort(), ['active', 'anchor', 'end', 'start']);
});

test('Location', () => {
  const u = Uri.file('/a.txt');
  const l = new Location(u, new Position(1, 2));
  assert.ok(l.range.isEmpty && l.range.start.isEqual(new Position(1, 2)));
  assert.ok(new Location(u, new Range(0, 0, 1, 0)).range.isEqual(new Range(0, 0, 1, 0)));
  assert.throws(() => new Location(u, 'x'));
  assert.ok(Location.isLocation(l) && !Location.isLocation({ uri: u }));
});

test('Uri.parse percent-decodes; toString encodes as VS Code does', () => {
  const u = Uri.parse('https://User@Example.COM:8080/a%20b/c%C3%A9?q=1&r=a%2Fb#frag%20x');
  assert.equal(u.scheme, 'https');
  assert.equal(u.authority, 'User@Example.COM:8080');
  assert.equal(u.path, '/a b/cé');
  assert.equal(u.query, 'q=1&r=a/b');
  assert.equal(u.fragment, 'frag x');
  assert.equal(u.toString(), 'https://User@example.com:8080/a%20b/c%C3%A9?q%3D1%26r%3Da%2Fb#frag%20x');
  assert.equal(u.toString(true), 'https://User@example.com:8080/a b/cé?q=1&r=a/b#frag x');
  const again = Uri.parse(u.toString());
  assert.deepEqual([again.scheme, again.authority, again.path, again.query, again.fragment], ['https', 'User@example.com:8080', '/a b/cé', 'q=1&r=a/b', 'frag x']);
  assert.equal(Uri.parse('file:///tmp/x').fsPath, '/tmp/x');
  assert.equal(Uri.parse('untitled:Untitled-1').toString(), 'untitled:Untitled-1');
  assert.equal(Uri.parse('before:some/file/path').with({ scheme: 'after' }).toString(), 'after:some/file/path');
  assert.equal(Uri.parse('http://x.org').path, '/');
  assert.equal(Uri.parse('file:///c:/x').toString(), 'file:///c%3A/x');
  assert.equal(Uri.parse('a:%zz%41').path, '%zzA', 'a bad escape is kept');
  assert.equal(Uri.parse('/just/a/path').scheme, 'file');
  assert.throws(() => Uri.parse('/just/a/path', true), /Scheme is missing/);
  assert.throws(() => Uri.parse('sch eme:x'), /illegal characters|Scheme/);
});

test('Uri.file keeps # and spaces in the path', () => {
  const u = Uri.file('/coding/c#/my project/a?.txt');
  assert.equal(u.scheme, 'file');
  assert.equal(u.path, '/coding/c#/my project/a?.txt');
  assert.equal(u.fragment, '');
  assert.equal(u.query, '');
  assert.equal(u.fsPath, '/coding/c#/my project/a?.txt');
  assert.equal(u.toString(), 'file:///coding/c%23/my%20project/a%3F.txt');
  assert.equal(u.toString(true), 'file:///coding/c%23/my project/a%3F.txt');
  const back = Uri.parse(u.toString());
  assert.equal(back.path, u.path);
  assert.equal(back.fsPath, u.fsPath);
  const unc = Uri.file('//server/share/x');
  assert.equal(unc.authority, 'server');
  assert.equal(unc.path, '/share/x');
  assert.equal(unc.fsPath, '//server/share/x');
  assert.equal(Uri.file('/a/b').toString(), 'file:///a/b');
});

test('Uri.joinPath, from, with, toJSON, isUri', () => {
  const base = Uri.file('/a/b');
  const j = Uri.joinPath(base, 'c', '../d', 'e.txt');
  assert.equal(j.path, '/a/b/d/e.txt');
  assert.equal(j.fsPath, '/a/b/d/e.txt');
  assert.throws(() => Uri.joinPath(Uri.from({ scheme: 'x' }), 'a'), /without path/);
  const f = Uri.from({ scheme: 'https', authority: 'x.org', path: '/p', query: 'q', fragment: 'f' });
  assert.equal(f.toString(), 'https://x.org/p?q#f');
  assert.throws(() => Uri.from({ scheme: '' }), /Scheme is missing/);
  assert.throws(() => Uri.from({ scheme: 'x', authority: 'a', path: 'rel' }), /authority/);
  assert.equal(f.with({}), f);
  assert.equal(f.with({ query: null }).toString(), 'https://x.org/p#f');
  assert.equal(f.with({ fragment: '' }).toString(), 'https://x.org/p?q');
  const json = JSON.parse(JSON.stringify(f));
  assert.deepEqual([json.scheme, json.authority, json.path, json.query, json.fragment, json.fsPath, json.external], ['https', 'x.org', '/p', 'q', 'f', '/p', 'https://x.org/p?q#f']);
  assert.ok(Uri.revive(json).toString() === f.toString());
  assert.ok(Uri.isUri(f) && !Uri.isUri({ scheme: 'x' }) && !Uri.isUri('file:///a'));
  assert.throws(() => { f.path = '/other'; }, TypeError);
});

test('Disposable.from and dispose once', () => {
  let n = 0;
  const d = new Disposable(() => n++);
  d.dispose();
  d.dispose();
  assert.equal(n, 1);
  let m = 0;
  const all = Disposable.from({ dispose: () => m++ }, undefined, { dispose: () => m++ }, {});
  all.dispose();
  all.dispose();
  assert.equal(m, 2);
  class Sub extends Disposable {
    constructor() { super(() => { this.gone = true; }); }
  }
  const s = new Sub();
  s.dispose();
  assert.ok(s.gone && s instanceof Disposable);
});

test('EventEmitter delivers, unsubscribes, survives a throwing listener', () => {
  const e = new EventEmitter();
  assert.equal(e.event, e.event, 'event is one function');
  const got = [];
  const subs = [];
  const ctx = { name: 'ctx' };
  const d1 = e.event(function (v) { got.push(['a', v, this.name]); }, ctx, subs);
  assert.equal(subs.length, 1);
  assert.equal(subs[0], d1);
  e.event(() => { throw new Error('listener boom'); });
  e.event((v) => got.push(['c', v]));
  const errors = [];
  const origError = console.error;
  console.error = (...a) => errors.push(a.map(String).join(' '));
  try {
    e.fire(1);
  } finally {
    console.error = origError;
  }
  assert.deepEqual(got, [['a', 1, 'ctx'], ['c', 1]]);
  assert.equal(errors.length, 1);
  assert.match(errors[0], /listener boom/);
  d1.dispose();
  got.length = 0;
  console.error = () => {};
  try {
    e.fire(2);
  } finally {
    console.error = origError;
  }
  assert.deepEqual(got, [['c', 2]]);
  e.dispose();
  e.fire(3);
  assert.deepEqual(got, [['c', 2]], 'a disposed emitter fires no more');
  const late = e.event(() => got.push('late'));
  late.dispose();
  e.fire(4);
  assert.deepEqual(got, [['c', 2]]);
});

test('EventEmitter subclass', () => {
  class Counter extends EventEmitter {
    constructor() { super(); this.count = 0; }
    fire(v) { this.count++; super.fire(v); }
  }
  const c = new Counter();
  let seen;
  c.event((v) => { seen = v; });
  c.fire('x');
  assert.ok(c instanceof EventEmitter && c instanceof Counter);
  assert.equal(seen, 'x');
  assert.equal(c.count, 1);
});

test('CancellationTokenSource fires once; a late subscriber is still called', async () => {
  const src = new CancellationTokenSource();
  const tok = src.token;
  assert.equal(tok.isCancellationRequested, false);
  let fired = 0;
  tok.onCancellationRequested(() => fired++);
  src.cancel();
  src.cancel();
  assert.equal(fired, 1);
  assert.equal(tok.isCancellationRequested, true);
  let late = 0;
  const subs = [];
  tok.onCancellationRequested(() => late++, undefined, subs);
  assert.equal(subs.length, 1);
  assert.equal(late, 0, 'not synchronously');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(late, 1);
  const disposedLate = src.token.onCancellationRequested(() => late++);
  disposedLate.dispose();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(late, 1, 'disposing the late subscription stops it');
  const early = new CancellationTokenSource();
  early.cancel();
  assert.equal(early.token.isCancellationRequested, true, 'cancel before token');
  const fresh = new CancellationTokenSource();
  fresh.dispose();
  assert.equal(fresh.token.isCancellationRequested, false);
  const parent = new CancellationTokenSource();
  const child = new CancellationTokenSource(parent.token);
  parent.cancel();
  assert.equal(child.token.isCancellationRequested, true);
  const err = new CancellationError();
  assert.ok(err instanceof Error && err.message === 'Canceled' && err.name === 'Canceled');
});

test('TextEdit statics', () => {
  const r = new Range(1, 0, 1, 4);
  const rep = TextEdit.replace(r, 'abc');
  assert.ok(rep instanceof TextEdit && rep.range.isEqual(r) && rep.newText === 'abc');
  const ins = TextEdit.insert(new Position(2, 3), 'x');
  assert.ok(ins.range.isEmpty && ins.range.start.isEqual(new Position(2, 3)) && ins.newText === 'x');
  const del = TextEdit.delete(r);
  assert.ok(del.range.isEqual(r) && del.newText === '');
  const eol = TextEdit.setEndOfLine(vscode.EndOfLine.CRLF);
  assert.equal(eol.newEol, 2);
  assert.ok(eol.range.isEmpty && eol.newText === '');
  assert.throws(() => new TextEdit('nope', 'x'));
  assert.ok(TextEdit.isTextEdit({ range: r, newText: '' }));
});

test('WorkspaceEdit entries, size, set/get/has and file operations', () => {
  const a = Uri.file('/a.txt');
  const b = Uri.file('/b.txt');
  const we = new WorkspaceEdit();
  assert.equal(we.size, 0);
  we.replace(a, new Range(0, 0, 0, 1), 'X');
  we.insert(b, new Position(1, 0), 'Y');
  we.delete(a, new Range(2, 0, 3, 0));
  assert.equal(we.size, 2);
  const entries = we.entries();
  assert.equal(entries.length, 2);
  assert.equal(entries[0][0].toString(), a.toString());
  assert.deepEqual(entries[0][1].map((e) => e.newText), ['X', '']);
  assert.equal(entries[1][0].toString(), b.toString());
  assert.ok(entries[1][1][0] instanceof TextEdit);
  assert.ok(we.has(a) && we.has(Uri.parse(a.toString())) && !we.has(Uri.file('/c')));
  assert.deepEqual(we.get(a).map((e) => e.newText), ['X', '']);
  assert.deepEqual(we.get(Uri.file('/none')), []);
  we.set(a, [TextEdit.insert(new Position(0, 0), 'Z'), [TextEdit.insert(new Position(0, 0), 'W'), { needsConfirmation: true, label: 'w' }]]);
  assert.deepEqual(we.get(a).map((e) => e.newText), ['Z', 'W'], 'set replaces');
  we.set(b, undefined);
  assert.ok(!we.has(b));
  we.createFile(Uri.file('/new.txt'), { overwrite: true });
  we.renameFile(a, Uri.file('/moved.txt'));
  we.deleteFile(Uri.file('/old.txt'), { recursive: true });
  assert.equal(we.entries().length, 1, 'entries holds text edits only');
  assert.equal(we.size, 3, 'size counts the resources file operations touch too');
  const ops = we._ops();
  assert.deepEqual(ops.map((o) => o.kind), ['edit', 'edit', 'create', 'rename', 'delete']);
  assert.equal(ops[1].metadata.label, 'w');
  assert.equal(ops[2].uri.path, '/new.txt');
  assert.deepEqual(ops[2].options, { overwrite: true });
  assert.equal(ops[3].from.path, '/a.txt');
  assert.equal(ops[3].to.path, '/moved.txt');
  assert.equal(ops[4].uri.path, '/old.txt');
  ops.pop();
  assert.equal(we._ops().length, 5, '_ops is a copy');
});

test('SnippetString escapes $, } and backslash', () => {
  const s = new SnippetString();
  s.appendText('a$b}c\\d{e');
  assert.equal(s.value, 'a\\$b\\}c\\\\d{e');
  s.appendTabstop();
  s.appendPlaceholder('x}$');
  s.appendTabstop(0);
  s.appendChoice(['a,b', 'c|d', 'e\\f']);
  s.appendVariable('TM_SELECTED_TEXT', 'def$}');
  s.appendVariable('CLIPBOARD');
  assert.equal(s.value, 'a\\$b\\}c\\\\d{e$1${2:x\\}\\$}$0${3|a\\,b,c\\|d,e\\\\f|}${TM_SELECTED_TEXT:def\\$\\}}${CLIPBOARD}');
  const n = new SnippetString('pre ');
  n.appendPlaceholder((inner) => inner.appendText('in ').appendTabstop());
  n.appendTabstop();
  assert.equal(n.value, 'pre ${1:in $2}$3');
  assert.ok(SnippetString.isSnippetString({ value: '' }));
});

test('MarkdownString appendText escapes', () => {
  const m = new MarkdownString();
  m.appendText('*bold* _x_ [l](u) #h `c` a\\b > q\nnext');
  assert.equal(m.value, '\\*bold\\*&nbsp;\\_x\\_&nbsp;\\[l\\]\\(u\\)&nbsp;\\#h&nbsp;\\`c\\`&nbsp;a\\\\b&nbsp;\\>&nbsp;q\n\nnext');
  m.appendMarkdown(' **raw**');
  assert.ok(m.value.endsWith(' **raw**'));
  const c = new MarkdownString('x').appendCodeblock('let a = 1;', 'js');
  assert.equal(c.value, 'x\n```js\nlet a = 1;\n```\n');
  const fence = new MarkdownString().appendCodeblock('```\ninner\n```');
  assert.equal(fence.value, '\n````\n```\ninner\n```\n````\n');
  const icons = new MarkdownString('', true).appendText('$(zap) go');
  // \$(zap) keeps the icon syntax literal once Markdown is parsed.
  assert.equal(icons.value, '\\\\$\\(zap\\)&nbsp;go');
  assert.equal(new MarkdownString('', false).appendText('$(zap)').value, '$\\(zap\\)');
  const t = new MarkdownString('v', true);
  assert.equal(t.supportThemeIcons, true);
  t.isTrusted = { enabledCommands: ['a.b'] };
  t.supportHtml = true;
  t.baseUri = Uri.file('/base/');
  assert.ok(MarkdownString.isMarkdownString(t));
  assert.throws(() => new MarkdownString(5));
});

test('CodeActionKind append, contains, intersects', () => {
  const K = CodeActionKind;
  assert.equal(K.Empty.value, '');
  assert.equal(K.QuickFix.value, 'quickfix');
  assert.equal(K.RefactorExtract.value, 'refactor.extract');
  assert.equal(K.RefactorInline.value, 'refactor.inline');
  assert.equal(K.RefactorMove.value, 'refactor.move');
  assert.equal(K.RefactorRewrite.value, 'refactor.rewrite');
  assert.equal(K.SourceOrganizeImports.value, 'source.organizeImports');
  assert.equal(K.SourceFixAll.value, 'source.fixAll');
  assert.equal(K.Notebook.value, 'notebook');
  const fn = K.RefactorExtract.append('function');
  assert.equal(fn.value, 'refactor.extract.function');
  assert.ok(fn instanceof K);
  assert.equal(K.Empty.append('custom').value, 'custom');
  assert.ok(K.RefactorExtract.contains(fn) && K.RefactorExtract.contains(K.RefactorExtract) && K.Refactor.contains(fn));
  assert.ok(!fn.contains(K.RefactorExtract));
  assert.ok(!K.RefactorExtract.contains(K.Refactor));
  assert.ok(!K.RefactorExtract.contains(K.Empty.append('refactor.extractAll')));
  assert.ok(!K.RefactorExtract.contains(K.Empty.append('unicorn.refactor.extract')));
  assert.ok(K.Refactor.intersects(fn) && fn.intersects(K.Refactor));
  assert.ok(!K.QuickFix.intersects(K.Refactor));
  const action = new vscode.CodeAction('Fix it', K.QuickFix);
  assert.equal(action.title, 'Fix it');
  assert.equal(action.kind, K.QuickFix);
  class MyAction extends vscode.CodeAction {}
  assert.ok(new MyAction('t') instanceof vscode.CodeAction);
});

test('SemanticTokensBuilder relative encoding', () => {
  const b = new SemanticTokensBuilder();
  b.push(1, 2, 3, 0, 1);
  b.push(1, 10, 4, 1);
  b.push(4, 1, 2, 2, 3);
  const t = b.build('r1');
  assert.ok(t instanceof vscode.SemanticTokens);
  assert.equal(t.resultId, 'r1');
  assert.ok(t.data instanceof Uint32Array);
  assert.deepEqual([...t.data], [1, 2, 3, 0, 1, 0, 8, 4, 1, 0, 3, 1, 2, 2, 3]);
  const unordered = new SemanticTokensBuilder();
  unordered.push(4, 1, 2, 2, 3);
  unordered.push(1, 10, 4, 1, 0);
  unordered.push(1, 2, 3, 0, 1);
  assert.deepEqual([...unordered.build().data], [...t.data], 'pushes out of order are sorted');
  const legend = new SemanticTokensLegend(['class', 'function', 'variable'], ['declaration', 'readonly', 'static']);
  const lb = new SemanticTokensBuilder(legend);
  lb.push(new Range(2, 4, 2, 9), 'function', ['declaration', 'static']);
  lb.push(new Range(2, 12, 2, 13), 'variable');
  assert.deepEqual([...lb.build().data], [2, 4, 5, 1, 5, 0, 8, 1, 2, 0]);
  assert.throws(() => lb.push(new Range(0, 0, 1, 0), 'class'), /multiple lines/);
  assert.throws(() => lb.push(new Range(0, 0, 0, 1), 'nope'), /tokenType/);
  assert.throws(() => lb.push(new Range(0, 0, 0, 1), 'class', ['nope']), /tokenModifier/);
  assert.throws(() => new SemanticTokensBuilder().push(new Range(0, 0, 0, 1), 'class'), /Legend/);
  assert.throws(() => new vscode.SemanticTokens([1, 2]));
});

test('FileSystemError codes and instanceof', () => {
  const cases = ['FileNotFound', 'FileExists', 'FileNotADirectory', 'FileIsADirectory', 'NoPermissions', 'Unavailable'];
  for (const c of cases) {
    const e = FileSystemError[c]('/x/y');
    assert.ok(e instanceof FileSystemError && e instanceof Error, c);
    assert.equal(e.code, c);
    assert.equal(e.message, '/x/y');
    assert.match(e.name, /\(FileSystemError\)$/);
    assert.ok(!/at (Function\.|)FileSystemError\./.test(e.stack.split('\n')[1] || ''), 'the factory is not in the stack');
  }
  assert.equal(FileSystemError.FileNotFound(Uri.file('/a b')).message, 'file:///a b');
  assert.equal(FileSystemError.FileNotFound().code, 'FileNotFound');
  assert.equal(new FileSystemError('plain').code, 'Unknown');
  class MyFsError extends FileSystemError {}
  assert.ok(new MyFsError('m') instanceof FileSystemError);
  assert.equal(vscode.FileType.SymbolicLink, 64);
  assert.equal(vscode.FileChangeType.Deleted, 3);
});

test('TreeItem forms and subclassing', () => {
  const t = new TreeItem('label', TreeItemCollapsibleState.Collapsed);
  assert.equal(t.label, 'label');
  assert.equal(t.collapsibleState, 1);
  assert.equal(t.resourceUri, undefined);
  const u = new TreeItem(Uri.file('/r.txt'));
  assert.equal(u.resourceUri.path, '/r.txt');
  assert.equal(u.label, undefined);
  assert.equal(u.collapsibleState, TreeItemCollapsibleState.None);
  class Node extends TreeItem {
    constructor(name) {
      super(name, TreeItemCollapsibleState.Expanded);
      this.contextValue = 'node';
      this.iconPath = vscode.ThemeIcon.Folder;
    }
  }
  const n = new Node('n');
  assert.ok(n instanceof TreeItem && n instanceof Node);
  assert.deepEqual([n.label, n.collapsibleState, n.contextValue, n.iconPath.id], ['n', 2, 'node', 'folder']);
  assert.equal(vscode.ThemeIcon.File.id, 'file');
  assert.equal(new vscode.ThemeIcon('x', new vscode.ThemeColor('c')).color.id, 'c');
});

test('language data classes', () => {
  const r = new Range(0, 0, 0, 5);
  const d = new vscode.Diagnostic(r, 'bad');
  assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
  assert.equal(JSON.parse(JSON.stringify(d)).severity, 'Error');
  assert.throws(() => new vscode.Diagnostic(r, ''), /message/);
  assert.throws(() => new vscode.Diagnostic('r', 'x'), /range/);
  const c = new vscode.CompletionItem('item', vscode.CompletionItemKind.Text);
  assert.equal(c.kind, 0);
  class MyItem extends vscode.CompletionItem {}
  assert.ok(new MyItem('x') instanceof vscode.CompletionItem);
  const list = new vscode.CompletionList();
  assert.deepEqual([list.items, list.isIncomplete], [[], false]);
  assert.equal(new vscode.CodeLens(r).isResolved, false);
  assert.equal(new vscode.CodeLens(r, { title: 't', command: 'c' }).isResolved, true);
  assert.deepEqual(new vscode.Hover('h').contents, ['h']);
  assert.throws(() => new vscode.Hover());
  assert.throws(() => new vscode.DocumentSymbol('s', '', vscode.SymbolKind.Class, new Range(0, 0, 0, 1), new Range(1, 0, 1, 1)), /selectionRange/);
  assert.throws(() => new vscode.DocumentSymbol(' ', '', 0, r, r), /name/);
  assert.deepEqual(new vscode.DocumentSymbol('s', 'd', 4, r, r).children, []);
  const uri = Uri.file('/s.ts');
  const s1 = new vscode.SymbolInformation('a', vscode.SymbolKind.Function, 'Container', new Location(uri, r));
  assert.equal(s1.containerName, 'Container');
  assert.ok(s1.location.range.isEqual(r));
  const s2 = new vscode.SymbolInformation('b', vscode.SymbolKind.Variable, r, uri, 'C2');
  assert.equal(s2.location.uri, uri);
  assert.equal(s2.containerName, 'C2');
  assert.equal(vscode.SymbolKind.TypeParameter, 25);
  assert.throws(() => new vscode.DocumentLink(new Range(0, 0, 0, 0)));
  assert.throws(() => new vscode.SelectionRange(new Range(0, 0, 2, 0), new vscode.SelectionRange(new Range(0, 0, 1, 0))), /parent/);
  assert.throws(() => new vscode.ColorPresentation(''));
});

test('tasks', () => {
  assert.deepEqual([vscode.TaskGroup.Build.id, vscode.TaskGroup.Clean.id, vscode.TaskGroup.Rebuild.id, vscode.TaskGroup.Test.id], ['build', 'clean', 'rebuild', 'test']);
  const p = new vscode.ProcessExecution('make', ['all'], { cwd: '/w' });
  assert.deepEqual([p.process, p.args, p.options.cwd], ['make', ['all'], '/w']);
  assert.deepEqual(new vscode.ProcessExecution('make', { cwd: '/x' }).args, []);
  const sh = new vscode.ShellExecution('echo hi');
  assert.equal(sh.commandLine, 'echo hi');
  const sh2 = new vscode.ShellExecution('echo', ['a', { value: 'b c', quoting: vscode.ShellQuoting.Strong }]);
  assert.equal(sh2.command, 'echo');
  assert.equal(sh2.args.length, 2);
  assert.throws(() => new vscode.ShellExecution(5));
  const t = new vscode.Task({ type: 'npm' }, vscode.TaskScope.Workspace, 'build', 'npm', sh, '$tsc');
  assert.deepEqual([t.name, t.source, t.scope, t.problemMatchers, t.isBackground], ['build', 'npm', 2, ['$tsc'], false]);
  const old = new vscode.Task({ type: 'x' }, 'n', 's');
  assert.deepEqual([old.name, old.source, old.scope, old.problemMatchers], ['n', 's', undefined, []]);
  assert.throws(() => new vscode.Task({ type: 'x' }, 1, 'n', ''), /source/);
});

test('enums are frozen and numbered as vscode.d.ts says', () => {
  assert.ok(Object.isFrozen(vscode.ViewColumn));
  assert.deepEqual([vscode.ViewColumn.Active, vscode.ViewColumn.Beside, vscode.ViewColumn.One], [-1, -2, 1]);
  assert.deepEqual([vscode.StatusBarAlignment.Left, vscode.StatusBarAlignment.Right], [1, 2]);
  assert.deepEqual([vscode.ProgressLocation.SourceControl, vscode.ProgressLocation.Window, vscode.ProgressLocation.Notification], [1, 10, 15]);
  assert.deepEqual([vscode.OverviewRulerLane.Full, vscode.QuickPickItemKind.Separator, vscode.EndOfLine.LF], [7, -1, 1]);
  assert.equal(vscode.CompletionItemKind.Issue, 26);
  assert.equal(vscode.LogLevel.Error, 5);
  assert.equal(vscode.TextEditorRevealType.AtTop, 3);
  assert.equal(vscode.ExtensionMode.Test, 3);
});

test('workbench types: RelativePattern, DataTransfer, QuickInputButtons, TerminalLink', async () => {
  const rp = new vscode.RelativePattern('/ws/a', '**/*.ts');
  assert.equal(rp.base, '/ws/a');
  assert.equal(rp.baseUri.toString(), 'file:///ws/a');
  assert.equal(rp.pattern, '**/*.ts');
  const folder = { uri: Uri.file('/ws/b'), name: 'b', index: 0 };
  assert.equal(new vscode.RelativePattern(folder, '*').base, '/ws/b');
  assert.equal(new vscode.RelativePattern(Uri.parse('mem:/x'), '*').baseUri.scheme, 'mem');
  assert.throws(() => new vscode.RelativePattern(5, '*'), /base/);
  assert.throws(() => new vscode.RelativePattern('/x'), /pattern/);
  const dt = new vscode.DataTransfer();
  dt.set('Text/Plain', new vscode.DataTransferItem('hello'));
  dt.set('application/json', new vscode.DataTransferItem({ a: 1 }));
  assert.equal(await dt.get('text/plain').asString(), 'hello');
  assert.equal(await dt.get('APPLICATION/JSON').asString(), '{"a":1}');
  assert.deepEqual([...dt].map(([m]) => m), ['text/plain', 'application/json']);
  assert.equal(vscode.QuickInputButtons.Back.iconPath.id, 'arrow-left');
  assert.throws(() => new vscode.QuickInputButtons());
  assert.throws(() => new vscode.TerminalLink(0, 0), /length/);
  assert.equal(new vscode.TerminalLink(1, 2, 't').tooltip, 't');
});

test('notebook types', () => {
  const r = new vscode.NotebookRange(3, 1);
  assert.deepEqual([r.start, r.end, r.isEmpty], [1, 3, false]);
  assert.equal(r.with({}), r);
  assert.throws(() => new vscode.NotebookRange(-1, 0));
  const item = vscode.NotebookCellOutputItem.text('hé');
  assert.equal(item.mime, 'text/plain');
  assert.deepEqual([...item.data], [104, 0xc3, 0xa9]);
  assert.equal(vscode.NotebookCellOutputItem.stderr('x').mime, 'application/vnd.code.notebook.stderr');
  const err = JSON.parse(new TextDecoder().decode(vscode.NotebookCellOutputItem.error(new TypeError('boom')).data));
  assert.deepEqual([err.name, err.message], ['TypeError', 'boom']);
  const edit = vscode.NotebookEdit.insertCells(2, [new vscode.NotebookCellData(vscode.NotebookCellKind.Code, 'x', 'python')]);
  assert.deepEqual([edit.range.start, edit.range.end, edit.newCells.length], [2, 2, 1]);
  const we = new WorkspaceEdit();
  we.set(Uri.file('/n.ipynb'), [edit]);
  assert.equal(we._ops()[0].kind, 'notebook');
});

test('debug, testing and language model types', () => {
  const loc = new Location(Uri.file('/a.js'), new Position(3, 0));
  const bp = new vscode.SourceBreakpoint(loc, false, 'x > 1');
  assert.ok(bp instanceof vscode.Breakpoint);
  assert.deepEqual([bp.enabled, bp.condition, typeof bp.id], [false, 'x > 1', 'string']);
  assert.notEqual(bp.id, new vscode.FunctionBreakpoint('main').id);
  assert.equal(new vscode.FunctionBreakpoint('main').enabled, true);
  const diff = vscode.TestMessage.diff('differs', 'a', 'b');
  assert.deepEqual([diff.message, diff.expectedOutput, diff.actualOutput], ['differs', 'a', 'b']);
  const req = new vscode.TestRunRequest();
  assert.deepEqual([req.continuous, req.preserveFocus], [false, true]);
  const fc = vscode.FileCoverage.fromDetails(Uri.file('/c.js'), [
    new vscode.StatementCoverage(1, new Position(0, 0), [new vscode.BranchCoverage(false), new vscode.BranchCoverage(2)]),
    new vscode.StatementCoverage(false, new Position(1, 0)),
    new vscode.DeclarationCoverage('f', true, new Position(0, 0)),
  ]);
  assert.deepEqual([fc.statementCoverage.covered, fc.statementCoverage.total], [1, 2]);
  assert.deepEqual([fc.branchCoverage.covered, fc.branchCoverage.total], [1, 2]);
  assert.deepEqual([fc.declarationCoverage.covered, fc.declarationCoverage.total], [1, 1]);
  const msg = vscode.LanguageModelChatMessage.User('hi');
  assert.equal(msg.role, vscode.LanguageModelChatMessageRole.User);
  assert.ok(msg.content[0] instanceof vscode.LanguageModelTextPart && msg.content[0].value === 'hi');
  const lmErr = vscode.LanguageModelError.Blocked('no');
  assert.ok(lmErr instanceof Error && lmErr.code === 'Blocked');
  assert.ok(new vscode.ChatResponseMarkdownPart('**x**').value instanceof MarkdownString);
});

(async () => {
  let passed = 0;
  let failed = 0;
  for (const { name, fn } of tests) {
    try {
      await fn();
      passed++;
    } catch (err) {
      failed++;
      console.log(`FAIL ${name}\n${err && err.stack}`);
    }
  }
  console.log(`types: ${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
})();
