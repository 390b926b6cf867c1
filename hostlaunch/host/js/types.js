// @ts-check
'use strict';
// The classes and enums of the vscode API (what vscode.d.ts declares as
// values, not interfaces), with VS Code's semantics. Each group lives in
// a file named for it; this module gathers them.
const enums = require('./enums.js');
const { Uri } = require('./vsuri.js');
const position = require('./position.js');
const event = require('./event.js');
const edits = require('./edits.js');
const notebook = require('./notebook.js');
const languagetypes = require('./languagetypes.js');
const workbench = require('./workbench.js');
const tasktypes = require('./tasktypes.js');
const debugtest = require('./debugtest.js');
const chattypes = require('./chattypes.js');

const { illegal, ...positions } = position;

module.exports = {
  ...enums,
  Uri,
  ...positions,
  ...event,
  ...edits,
  ...notebook,
  ...languagetypes,
  ...workbench,
  ...tasktypes,
  ...debugtest,
  ...chattypes,
};
