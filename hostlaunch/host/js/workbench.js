// @ts-check
'use strict';
// Workbench data types: theme colors and icons, tree items, quick input
// buttons, relative patterns, file system errors, file decorations,
// data transfer, terminal links and profiles, tab inputs.
const { illegal } = require('./position.js');
const { Uri } = require('./vsuri.js');
const enums = require('./enums.js');

// ThemeColor: a reference to a color of the theme, by id.
class ThemeColor {
  constructor(id) {
    this.id = id;
  }
}

// ThemeIcon: a reference to a product icon, by id, optionally colored.
class ThemeIcon {
  constructor(id, color) {
    if (typeof id !== 'string') throw illegal('id');
    if (color !== undefined && !(color instanceof ThemeColor) && !(color && typeof color.id === 'string')) throw illegal('color');
    this.id = id;
    this.color = color;
  }

  // isThemeIcon reports whether thing is one or looks like one.
  static isThemeIcon(thing) {
    if (thing instanceof ThemeIcon) return true;
    return !!thing && typeof thing.id === 'string' && (thing.color === undefined || typeof thing.color.id === 'string');
  }
}
ThemeIcon.File = new ThemeIcon('file');
ThemeIcon.Folder = new ThemeIcon('folder');

// TreeItem: an item of a tree view, made of a label or of a resource
// Uri (whose name is then the label).
class TreeItem {
  constructor(labelOrUri, collapsibleState = enums.TreeItemCollapsibleState.None) {
    if (Uri.isUri(labelOrUri)) this.resourceUri = labelOrUri;
    else this.label = labelOrUri;
    this.collapsibleState = collapsibleState;
  }
}

// QuickInputButtons: the buttons every quick input knows (Back).
class QuickInputButtons {
  constructor() {
    throw new TypeError('QuickInputButtons is not constructable');
  }
}
QuickInputButtons.Back = Object.freeze({ iconPath: new ThemeIcon('arrow-left') });

// RelativePattern: a glob pattern relative to a base folder (a path, a
// Uri or a workspace folder).
class RelativePattern {
  #baseUri;

  constructor(base, pattern) {
    if (typeof base !== 'string' && !(base && (Uri.isUri(base) || Uri.isUri(base.uri)))) throw illegal('base');
    if (typeof pattern !== 'string') throw illegal('pattern');
    if (typeof base === 'string') this.#baseUri = Uri.file(base);
    else if (Uri.isUri(base)) this.#baseUri = base;
    else this.#baseUri = base.uri;
    this.pattern = pattern;
  }

  get baseUri() { return this.#baseUri; }
  set baseUri(uri) { this.#baseUri = uri; }

  // base is the base folder's file system path.
  get base() { return this.#baseUri.fsPath; }
  set base(p) { this.#baseUri = Uri.file(p); }

  toJSON() { return { pattern: this.pattern, base: this.base, baseUri: this.baseUri }; }
}

// The code each FileSystemError factory gives, as VS Code names it in
// the error's name (e.g. 'EntryNotFound (FileSystemError)').
const FS_CODES = {
  FileNotFound: 'EntryNotFound',
  FileExists: 'EntryExists',
  FileNotADirectory: 'EntryNotADirectory',
  FileIsADirectory: 'EntryIsADirectory',
  NoPermissions: 'NoPermissions',
  Unavailable: 'Unavailable',
};

// FileSystemError: the error a file system provider throws; code names
// the kind ('FileNotFound'...; 'Unknown' when made with new).
class FileSystemError extends Error {
  constructor(messageOrUri, code = 'Unknown', terminator) {
    super(Uri.isUri(messageOrUri) ? messageOrUri.toString(true) : messageOrUri);
    this.code = code;
    this.name = (FS_CODES[code] || code) + ' (FileSystemError)';
    if (typeof Error.captureStackTrace === 'function' && typeof terminator === 'function') Error.captureStackTrace(this, terminator);
  }

  static FileNotFound(messageOrUri) { return new FileSystemError(messageOrUri, 'FileNotFound', FileSystemError.FileNotFound); }
  static FileExists(messageOrUri) { return new FileSystemError(messageOrUri, 'FileExists', FileSystemError.FileExists); }
  static FileNotADirectory(messageOrUri) { return new FileSystemError(messageOrUri, 'FileNotADirectory', FileSystemError.FileNotADirectory); }
  static FileIsADirectory(messageOrUri) { return new FileSystemError(messageOrUri, 'FileIsADirectory', FileSystemError.FileIsADirectory); }
  static NoPermissions(messageOrUri) { return new FileSystemError(messageOrUri, 'NoPermissions', FileSystemError.NoPermissions); }
  static Unavailable(messageOrUri) { return new FileSystemError(messageOrUri, 'Unavailable', FileSystemError.Unavailable); }
}

// FileDecoration: a badge, tooltip and color for a file in the explorer.
class FileDecoration {
  constructor(badge, tooltip, color) {
    this.badge = badge;
    this.tooltip = tooltip;
    this.color = color;
  }
}

// DataTransferItem: one item of a drag and drop or a paste.
class DataTransferItem {
  constructor(value) {
    this.value = value;
  }

  // asString is the value as a string (JSON unless it is one).
  async asString() {
    return typeof this.value === 'string' ? this.value : JSON.stringify(this.value);
  }

  asFile() { return undefined; }
}

// DataTransfer: the items of a drag and drop or a paste, by mime type
// (case-insensitive).
class DataTransfer {
  #items = new Map();

  get(mimeType) {
    const items = this.#items.get(String(mimeType).toLowerCase());
    return items && items[0];
  }

  set(mimeType, value) {
    this.#items.set(String(mimeType).toLowerCase(), [value]);
  }

  forEach(callbackfn, thisArg) {
    for (const [mime, items] of this.#items) for (const item of items) callbackfn.call(thisArg, item, mime, this);
  }

  * [Symbol.iterator]() {
    for (const [mime, items] of this.#items) for (const item of items) yield [mime, item];
  }
}

// TerminalLink: a link found in a terminal line.
class TerminalLink {
  constructor(startIndex, length, tooltip) {
    if (typeof startIndex !== 'number' || startIndex < 0) throw illegal('startIndex');
    if (typeof length !== 'number' || length < 1) throw illegal('length');
    if (tooltip !== undefined && typeof tooltip !== 'string') throw illegal('tooltip');
    this.startIndex = startIndex;
    this.length = length;
    this.tooltip = tooltip;
  }
}

// TerminalProfile: the options of a terminal a profile provider makes.
class TerminalProfile {
  constructor(options) {
    if (!options || typeof options !== 'object') throw illegal('options');
    this.options = options;
  }
}

// TabInputText: the input of a text editor tab.
class TabInputText {
  constructor(uri) { this.uri = uri; }
}

// TabInputTextDiff: the input of a diff editor tab.
class TabInputTextDiff {
  constructor(original, modified) {
    this.original = original;
    this.modified = modified;
  }
}

// TabInputCustom: the input of a custom editor tab.
class TabInputCustom {
  constructor(uri, viewType) {
    this.uri = uri;
    this.viewType = viewType;
  }
}

// TabInputWebview: the input of a webview tab.
class TabInputWebview {
  constructor(viewType) { this.viewType = viewType; }
}

// TabInputNotebook: the input of a notebook tab.
class TabInputNotebook {
  constructor(uri, notebookType) {
    this.uri = uri;
    this.notebookType = notebookType;
  }
}

// TabInputNotebookDiff: the input of a notebook diff tab.
class TabInputNotebookDiff {
  constructor(original, modified, notebookType) {
    this.original = original;
    this.modified = modified;
    this.notebookType = notebookType;
  }
}

// TabInputTerminal: the input of a terminal tab.
class TabInputTerminal {}

// TelemetryTrustedValue: a value telemetry sends without cleaning it.
class TelemetryTrustedValue {
  constructor(value) { this.value = value; }
}

module.exports = {
  ThemeColor, ThemeIcon, TreeItem, QuickInputButtons, RelativePattern, FileSystemError, FileDecoration,
  DataTransferItem, DataTransfer, TerminalLink, TerminalProfile, TabInputText, TabInputTextDiff, TabInputCustom,
  TabInputWebview, TabInputNotebook, TabInputNotebookDiff, TabInputTerminal, TelemetryTrustedValue,
};
