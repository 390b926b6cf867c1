'use strict';
// Unit tests of js/types.js (the module that gathers the vscode API's
// classes and enums), run by TestJSUnit; testdata/js/types.test.js
// tests the classes themselves.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const dir = process.env.AIRVSX_HOST_JS;
const types = require(path.join(dir, 'types.js'));
const groups = ['enums', 'position', 'event', 'edits', 'notebook', 'languagetypes', 'workbench', 'tasktypes', 'debugtest', 'chattypes'];

test('types gathers every group, and no two groups export one name', () => {
  const from = new Map();
  for (const g of groups) {
    for (const [k, v] of Object.entries(require(path.join(dir, `${g}.js`)))) {
      if (g === 'position' && k === 'illegal') continue; // a helper, not API
      assert.ok(!from.has(k), `${k} is exported by both ${from.get(k)}.js and ${g}.js: one hides the other in types.js`);
      from.set(k, g);
      assert.equal(types[k], v, `types.${k} is not ${g}.js's`);
    }
  }
  assert.equal(types.Uri, require(path.join(dir, 'vsuri.js')).Uri);
  assert.equal(types.illegal, undefined);
  assert.equal(Object.keys(types).length, from.size + 1);
});

test('basic classes and enums behave as VS Code says', () => {
  const { Position, Range, Uri, Disposable, EventEmitter, DiagnosticSeverity } = types;
  const r = new Range(new Position(2, 0), new Position(1, 4));
  assert.deepEqual([r.start.line, r.start.character, r.end.line, r.end.character], [1, 4, 2, 0]);
  assert.ok(r.contains(new Position(1, 9)));
  assert.equal(Uri.file('/a/b c').toString(), 'file:///a/b%20c');
  assert.equal(DiagnosticSeverity.Error, 0);
  let disposed = 0;
  Disposable.from({ dispose: () => disposed++ }, { dispose: () => disposed++ }).dispose();
  assert.equal(disposed, 2);
  const em = new EventEmitter();
  const got = [];
  em.event((x) => got.push(x));
  em.fire(1);
  em.dispose();
  em.fire(2);
  assert.deepEqual(got, [1]);
});
