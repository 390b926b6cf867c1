// @ts-check
'use strict';
// Notebook data types: NotebookRange, NotebookCellOutputItem,
// NotebookCellOutput, NotebookCellData, NotebookData,
// NotebookCellStatusBarItem and NotebookEdit.
const { illegal } = require('./position.js');

// NotebookRange: a range of cell indexes, start inclusive, end exclusive.
class NotebookRange {
  constructor(start, end) {
    if (typeof start !== 'number' || start < 0 || !Number.isInteger(start)) throw illegal('start must be a non-negative integer');
    if (typeof end !== 'number' || end < 0 || !Number.isInteger(end)) throw illegal('end must be a non-negative integer');
    const [s, e] = start <= end ? [start, end] : [end, start];
    // Declarations only (defined read-only below).
    /** @type {number} */
    this.start;
    /** @type {number} */
    this.end;
    Object.defineProperty(this, 'start', { value: s, enumerable: true });
    Object.defineProperty(this, 'end', { value: e, enumerable: true });
  }

  get isEmpty() { return this.start === this.end; }

  // with replaces start or end; this when nothing changes.
  with(change) {
    const start = change.start === undefined ? this.start : change.start;
    const end = change.end === undefined ? this.end : change.end;
    if (start === this.start && end === this.end) return this;
    return new NotebookRange(start, end);
  }

  toJSON() { return { start: this.start, end: this.end }; }
}

// NotebookCellOutputItem: one representation (mime type and bytes) of a
// cell output.
class NotebookCellOutputItem {
  constructor(data, mime) {
    if (!(data instanceof Uint8Array)) throw illegal('data');
    this.data = data;
    this.mime = mime;
  }

  // isNotebookCellOutputItem reports whether thing is one or looks like one.
  static isNotebookCellOutputItem(thing) {
    if (thing instanceof NotebookCellOutputItem) return true;
    return !!thing && typeof thing.mime === 'string' && thing.data instanceof Uint8Array;
  }

  static text(value, mime = 'text/plain') { return new NotebookCellOutputItem(new TextEncoder().encode(String(value)), mime); }
  static json(value, mime = 'text/x-json') { return NotebookCellOutputItem.text(JSON.stringify(value, undefined, '\t'), mime); }
  static stdout(value) { return NotebookCellOutputItem.text(value, 'application/vnd.code.notebook.stdout'); }
  static stderr(value) { return NotebookCellOutputItem.text(value, 'application/vnd.code.notebook.stderr'); }

  // error is err's name, message and stack as JSON.
  static error(err) {
    const o = { name: err && err.name, message: err && err.message, stack: err && err.stack };
    return NotebookCellOutputItem.json(o, 'application/vnd.code.notebook.error');
  }
}

// NotebookCellOutput: the output of a cell, in one or more items.
class NotebookCellOutput {
  constructor(items, idOrMetadata, metadata) {
    this.items = items;
    if (typeof idOrMetadata === 'string') {
      this.id = idOrMetadata;
      this.metadata = metadata;
    } else {
      this.id = undefined;
      this.metadata = idOrMetadata !== undefined ? idOrMetadata : metadata;
    }
  }
}

// NotebookCellData: a cell of a NotebookData (kind, source, language).
class NotebookCellData {
  constructor(kind, value, languageId) {
    if (typeof value !== 'string') throw illegal('value');
    if (typeof languageId !== 'string') throw illegal('languageId');
    this.kind = kind;
    this.value = value;
    this.languageId = languageId;
  }
}

// NotebookData: the cells and metadata of a notebook, as a serializer
// reads or writes it.
class NotebookData {
  constructor(cells) {
    this.cells = cells;
  }
}

// NotebookCellStatusBarItem: an item shown in a cell's status bar.
class NotebookCellStatusBarItem {
  constructor(text, alignment) {
    this.text = text;
    this.alignment = alignment;
  }
}

// NotebookEdit: replace a range of cells, or change metadata.
class NotebookEdit {
  constructor(range, newCells) {
    this.range = range;
    this.newCells = newCells;
    // Declarations only: the metadata edits set one of them.
    /** @type {Record<string, any> | undefined} */
    this.newCellMetadata;
    /** @type {Record<string, any> | undefined} */
    this.newNotebookMetadata;
  }

  // isNotebookEdit reports whether thing is one or looks like one.
  static isNotebookEdit(thing) {
    if (thing instanceof NotebookEdit) return true;
    return !!thing && thing.range !== undefined && Array.isArray(thing.newCells);
  }

  static replaceCells(range, newCells) { return new NotebookEdit(range, newCells); }
  static insertCells(index, newCells) { return new NotebookEdit(new NotebookRange(index, index), newCells); }
  static deleteCells(range) { return new NotebookEdit(range, []); }

  static updateCellMetadata(index, newCellMetadata) {
    const edit = new NotebookEdit(new NotebookRange(index, index), []);
    edit.newCellMetadata = newCellMetadata;
    return edit;
  }

  static updateNotebookMetadata(newNotebookMetadata) {
    const edit = new NotebookEdit(new NotebookRange(0, 0), []);
    edit.newNotebookMetadata = newNotebookMetadata;
    return edit;
  }
}

module.exports = { NotebookRange, NotebookCellOutputItem, NotebookCellOutput, NotebookCellData, NotebookData, NotebookCellStatusBarItem, NotebookEdit };
