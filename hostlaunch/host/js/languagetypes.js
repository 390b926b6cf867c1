// @ts-check
'use strict';
// The data classes of language features: diagnostics, completion, code
// actions, symbols, hovers, semantic tokens, inlay hints and the rest.
const { Range, Location, illegal } = require('./position.js');
const { Uri } = require('./vsuri.js');
const { MarkdownString } = require('./edits.js');
const enums = require('./enums.js');

const enumName = (e, v) => Object.keys(e).find((k) => e[k] === v);

// DiagnosticRelatedInformation: a location and message that explain a
// diagnostic.
class DiagnosticRelatedInformation {
  constructor(location, message) {
    if (!location) throw illegal('location');
    if (typeof message !== 'string') throw illegal('message');
    this.location = location;
    this.message = message;
  }
}

// Diagnostic: a problem (error, warning...) in a range of a document.
class Diagnostic {
  constructor(range, message, severity = enums.DiagnosticSeverity.Error) {
    if (!Range.isRange(range)) throw new TypeError('range must be set');
    if (!message && !MarkdownString.isMarkdownString(message)) throw new TypeError('message must be set');
    this.range = range;
    this.message = message;
    this.severity = severity;
    this.source = undefined;
    this.code = undefined;
    this.relatedInformation = undefined;
    this.tags = undefined;
  }

  // isEqual reports whether two diagnostics say the same thing.
  static isEqual(a, b) {
    if (a === b) return true;
    if (!a || !b) return false;
    return a.message === b.message && a.severity === b.severity && a.code === b.code && a.source === b.source && a.range.isEqual(b.range);
  }

  toJSON() {
    return { severity: enumName(enums.DiagnosticSeverity, this.severity), message: this.message, range: this.range, source: this.source, code: this.code };
  }
}

// HierarchicalKind is the dotted kinds (CodeActionKind and
// DocumentDropOrPasteEditKind): 'refactor' contains 'refactor.extract'.
function hierarchical(Kind) {
  Object.assign(Kind.prototype, {
    // append adds parts, dot-separated.
    /** @this {{value: string}} */
    append(...parts) {
      return new Kind([this.value, ...parts].filter((p) => p).join('.'));
    },
    // contains reports whether other is this kind or a sub-kind of it.
    /** @this {{value: string}} */
    contains(other) {
      return this.value === other.value || other.value.startsWith(this.value + '.');
    },
    // intersects reports whether either kind contains the other.
    /** @this {{contains(other: any): boolean}} */
    intersects(other) {
      return this.contains(other) || other.contains(this);
    },
  });
  return Kind;
}

// CodeActionKind: the dotted kind of a code action, e.g. 'refactor.extract'.
class CodeActionKind {
  constructor(value) {
    Object.defineProperty(this, 'value', { value, enumerable: true });
    // Declarations only: value is defined above, the methods by
    // hierarchical.
    /** @type {string} */
    this.value;
    /** @type {(...parts: string[]) => CodeActionKind} */
    this.append;
  }
}
hierarchical(CodeActionKind);
CodeActionKind.sep = '.';
CodeActionKind.Empty = new CodeActionKind('');
CodeActionKind.QuickFix = CodeActionKind.Empty.append('quickfix');
CodeActionKind.Refactor = CodeActionKind.Empty.append('refactor');
CodeActionKind.RefactorExtract = CodeActionKind.Refactor.append('extract');
CodeActionKind.RefactorInline = CodeActionKind.Refactor.append('inline');
CodeActionKind.RefactorMove = CodeActionKind.Refactor.append('move');
CodeActionKind.RefactorRewrite = CodeActionKind.Refactor.append('rewrite');
CodeActionKind.Source = CodeActionKind.Empty.append('source');
CodeActionKind.SourceOrganizeImports = CodeActionKind.Source.append('organizeImports');
CodeActionKind.SourceFixAll = CodeActionKind.Source.append('fixAll');
CodeActionKind.Notebook = CodeActionKind.Empty.append('notebook');

// DocumentDropOrPasteEditKind: the dotted kind of a drop or paste edit.
class DocumentDropOrPasteEditKind {
  constructor(value) {
    Object.defineProperty(this, 'value', { value, enumerable: true });
    // Declarations only: value is defined above, the methods by
    // hierarchical.
    /** @type {string} */
    this.value;
    /** @type {(...parts: string[]) => DocumentDropOrPasteEditKind} */
    this.append;
  }
}
hierarchical(DocumentDropOrPasteEditKind);
DocumentDropOrPasteEditKind.sep = '.';
DocumentDropOrPasteEditKind.Empty = new DocumentDropOrPasteEditKind('');
DocumentDropOrPasteEditKind.Text = DocumentDropOrPasteEditKind.Empty.append('text');
DocumentDropOrPasteEditKind.TextUpdateImports = DocumentDropOrPasteEditKind.Text.append('updateImports');

// CodeAction: a fix or refactoring, as an edit and/or a command.
class CodeAction {
  constructor(title, kind) {
    this.title = title;
    this.kind = kind;
    this.edit = undefined;
    this.diagnostics = undefined;
    this.command = undefined;
    this.isPreferred = undefined;
    this.disabled = undefined;
  }
}

// CodeLens: a command shown above a range of source.
class CodeLens {
  constructor(range, command) {
    this.range = range;
    this.command = command;
  }

  // isResolved: the lens has its command.
  get isResolved() { return !!this.command; }
}

// Hover: the contents of a hover, for an optional range.
class Hover {
  constructor(contents, range) {
    if (!contents) throw illegal('contents');
    this.contents = Array.isArray(contents) ? contents : [contents];
    this.range = range;
  }
}

// EvaluatableExpression: a range (and expression) a debugger evaluates
// on hover.
class EvaluatableExpression {
  constructor(range, expression) {
    this.range = range;
    this.expression = expression;
  }
}

// InlineValueText: text shown inline while debugging.
class InlineValueText {
  constructor(range, text) {
    this.range = range;
    this.text = text;
  }
}

// InlineValueVariableLookup: a variable whose value is shown inline.
class InlineValueVariableLookup {
  constructor(range, variableName, caseSensitiveLookup = true) {
    this.range = range;
    this.variableName = variableName;
    this.caseSensitiveLookup = caseSensitiveLookup;
  }
}

// InlineValueEvaluatableExpression: an expression whose value is shown
// inline.
class InlineValueEvaluatableExpression {
  constructor(range, expression) {
    this.range = range;
    this.expression = expression;
  }
}

// DocumentHighlight: a range to highlight (a symbol's reads and writes).
class DocumentHighlight {
  constructor(range, kind = enums.DocumentHighlightKind.Text) {
    this.range = range;
    this.kind = kind;
  }

  toJSON() { return { range: this.range, kind: enumName(enums.DocumentHighlightKind, this.kind) }; }
}

// SymbolInformation: a symbol and where it is, flat (no children).
// Forms: (name, kind, containerName, location) and (name, kind, range,
// uri?, containerName?).
class SymbolInformation {
  constructor(name, kind, rangeOrContainer, locationOrUri, containerName) {
    if (typeof name !== 'string' || !name.trim()) throw new Error('name must not be falsy');
    this.name = name;
    this.kind = kind;
    this.containerName = containerName;
    this.tags = undefined;
    if (typeof rangeOrContainer === 'string') this.containerName = rangeOrContainer;
    if (locationOrUri instanceof Location || Location.isLocation(locationOrUri)) this.location = locationOrUri;
    else if (Range.isRange(rangeOrContainer)) this.location = new Location(locationOrUri, rangeOrContainer);
    else this.location = undefined;
  }

  toJSON() {
    return { name: this.name, kind: enumName(enums.SymbolKind, this.kind), location: this.location, containerName: this.containerName };
  }
}

// DocumentSymbol: a symbol with its full range, the range of its name
// and its children.
class DocumentSymbol {
  constructor(name, detail, kind, range, selectionRange) {
    if (typeof name !== 'string' || !name.trim()) throw new Error('name must not be falsy');
    if (!Range.isRange(range)) throw illegal('range');
    if (!Range.isRange(selectionRange)) throw illegal('selectionRange');
    if (!Range.of(range).contains(selectionRange)) throw new Error('selectionRange must be contained in fullRange');
    this.name = name;
    this.detail = detail;
    this.kind = kind;
    this.tags = undefined;
    this.range = range;
    this.selectionRange = selectionRange;
    this.children = [];
  }
}

// DocumentLink: a link in a document, to a target Uri or resolved later.
class DocumentLink {
  constructor(range, target) {
    if (target && !Uri.isUri(target)) throw illegal('target');
    if (!Range.isRange(range) || Range.of(range).isEmpty) throw illegal('range');
    this.range = range;
    this.target = target;
    this.tooltip = undefined;
  }
}

// FoldingRange: lines start to end (zero-based) that can be folded.
class FoldingRange {
  constructor(start, end, kind) {
    this.start = start;
    this.end = end;
    this.kind = kind;
  }
}

// SelectionRange: a range for smart select, inside its parent.
class SelectionRange {
  constructor(range, parent) {
    if (!Range.isRange(range)) throw illegal('range');
    if (parent && !Range.of(parent.range).contains(range)) throw new Error('Invalid argument: parent must contain this range');
    this.range = range;
    this.parent = parent;
  }
}

// ParameterInformation: a parameter of a signature (label or its
// [start, end] offsets in the signature's label).
class ParameterInformation {
  constructor(label, documentation) {
    this.label = label;
    this.documentation = documentation;
  }
}

// SignatureInformation: a callable's signature and its parameters.
class SignatureInformation {
  constructor(label, documentation) {
    this.label = label;
    this.documentation = documentation;
    this.parameters = [];
    this.activeParameter = undefined;
  }
}

// SignatureHelp: the signatures of the call at the cursor and which one
// and which parameter are active.
class SignatureHelp {
  constructor() {
    this.signatures = [];
    this.activeSignature = 0;
    this.activeParameter = 0;
  }
}

// CompletionItem: a completion proposal.
class CompletionItem {
  constructor(label, kind) {
    this.label = label;
    this.kind = kind;
    // Declarations only: the extension sets those it wants.
    /** @type {string | undefined} */
    this.detail;
    /** @type {any} a string or a MarkdownString */
    this.documentation;
    /** @type {string | undefined} */
    this.sortText;
    /** @type {string | undefined} */
    this.filterText;
    /** @type {boolean | undefined} */
    this.preselect;
    /** @type {any} a string or a SnippetString */
    this.insertText;
    /** @type {any} */
    this.textEdit;
  }

  toJSON() {
    return {
      label: this.label, kind: this.kind === undefined ? undefined : enumName(enums.CompletionItemKind, this.kind), detail: this.detail, documentation: this.documentation,
      sortText: this.sortText, filterText: this.filterText, preselect: this.preselect, insertText: this.insertText, textEdit: this.textEdit,
    };
  }
}

// CompletionList: completion items, possibly incomplete (asked again as
// the user types).
class CompletionList {
  constructor(items = [], isIncomplete = false) {
    this.items = items;
    this.isIncomplete = isIncomplete;
  }
}

// InlineCompletionItem: a ghost-text completion.
class InlineCompletionItem {
  constructor(insertText, range, command) {
    this.insertText = insertText;
    this.range = range;
    this.command = command;
  }
}

// InlineCompletionList: inline completion items.
class InlineCompletionList {
  constructor(items) {
    this.items = items;
  }
}

// Color: an RGBA color, each component in [0, 1].
class Color {
  constructor(red, green, blue, alpha) {
    for (const [k, v] of Object.entries({ red, green, blue, alpha })) Object.defineProperty(this, k, { value: v, enumerable: true });
  }
}

// ColorInformation: a color found in a range of a document.
class ColorInformation {
  constructor(range, color) {
    if (color && !(color instanceof Color)) throw illegal('color');
    if (!Range.isRange(range)) throw illegal('range');
    this.range = range;
    this.color = color;
  }
}

// ColorPresentation: how a color can be written (its label, edits).
class ColorPresentation {
  constructor(label) {
    if (!label || typeof label !== 'string') throw illegal('label');
    this.label = label;
    this.textEdit = undefined;
    this.additionalTextEdits = undefined;
  }
}

// InlayHintLabelPart: a part of an inlay hint's label, with its own
// tooltip, location and command.
class InlayHintLabelPart {
  constructor(value) {
    this.value = value;
  }
}

// InlayHint: a hint shown inline at a position.
class InlayHint {
  constructor(position, label, kind) {
    this.position = position;
    this.label = label;
    this.kind = kind;
    this.textEdits = undefined;
    this.tooltip = undefined;
    this.paddingLeft = undefined;
    this.paddingRight = undefined;
  }
}

// CallHierarchyItem: a function or the like in the call hierarchy.
class CallHierarchyItem {
  constructor(kind, name, detail, uri, range, selectionRange) {
    Object.assign(this, { kind, name, detail, uri, range, selectionRange });
  }
}

// CallHierarchyIncomingCall: a caller and the ranges of its calls.
class CallHierarchyIncomingCall {
  constructor(item, fromRanges) {
    this.from = item;
    this.fromRanges = fromRanges;
  }
}

// CallHierarchyOutgoingCall: a callee and the ranges of the calls.
class CallHierarchyOutgoingCall {
  constructor(item, fromRanges) {
    this.to = item;
    this.fromRanges = fromRanges;
  }
}

// TypeHierarchyItem: a type in the type hierarchy.
class TypeHierarchyItem {
  constructor(kind, name, detail, uri, range, selectionRange) {
    Object.assign(this, { kind, name, detail, uri, range, selectionRange });
  }
}

// LinkedEditingRanges: ranges edited together, and their word pattern.
class LinkedEditingRanges {
  constructor(ranges, wordPattern) {
    this.ranges = ranges;
    this.wordPattern = wordPattern;
  }
}

// DocumentDropEdit: what a drop into the editor inserts.
class DocumentDropEdit {
  constructor(insertText, title, kind) {
    this.insertText = insertText;
    this.title = title;
    this.kind = kind;
  }
}

// DocumentPasteEdit: what a paste into the editor inserts.
class DocumentPasteEdit {
  constructor(insertText, title, kind) {
    this.insertText = insertText;
    this.title = title;
    this.kind = kind;
  }
}

// SemanticTokensLegend: the token types and modifiers the numbers of
// semantic tokens index.
class SemanticTokensLegend {
  constructor(tokenTypes, tokenModifiers = []) {
    this.tokenTypes = tokenTypes;
    this.tokenModifiers = tokenModifiers;
  }
}

// SemanticTokens: tokens in VS Code's relative encoding, five integers a
// token (delta line, delta start character, length, type, modifiers).
class SemanticTokens {
  constructor(data, resultId) {
    if (!(data instanceof Uint32Array)) throw illegal('data');
    this.data = data;
    this.resultId = resultId;
  }
}

// SemanticTokensEdit: replace deleteCount integers of the token data at
// start with data.
class SemanticTokensEdit {
  constructor(start, deleteCount, data) {
    this.start = start;
    this.deleteCount = deleteCount;
    this.data = data;
  }
}

// SemanticTokensEdits: edits to the previous result's token data.
class SemanticTokensEdits {
  constructor(edits, resultId) {
    this.edits = edits;
    this.resultId = resultId;
  }
}

// SemanticTokensBuilder: collects tokens in absolute positions, in any
// order, and builds them into SemanticTokens (sorted, delta-encoded).
class SemanticTokensBuilder {
  #tokens = [];
  #types;
  #modifiers;

  constructor(legend) {
    if (legend) {
      this.#types = new Map(legend.tokenTypes.map((t, i) => [t, i]));
      this.#modifiers = new Map(legend.tokenModifiers.map((m, i) => [m, i]));
    }
  }

  // push adds a token: (line, char, length, tokenType, tokenModifiers?)
  // with numbers, or (range, tokenType, tokenModifiers?) with the
  // legend's names and a single-line range.
  push(a0, a1, a2, a3, a4) {
    if (typeof a0 === 'number' && typeof a1 === 'number' && typeof a2 === 'number' && typeof a3 === 'number') {
      this.#tokens.push([a0, a1, a2, a3, a4 === undefined ? 0 : a4]);
      return;
    }
    if (Range.isRange(a0) && typeof a1 === 'string') {
      if (!this.#types) throw new Error('Legend must be provided in constructor');
      const range = Range.of(a0);
      if (!range.isSingleLine) throw new Error('`range` cannot span multiple lines');
      if (!this.#types.has(a1)) throw new Error('`tokenType` is not in the provided legend');
      let mods = 0;
      for (const m of a2 || []) {
        if (!this.#modifiers.has(m)) throw new Error('`tokenModifier` is not in the provided legend');
        mods = (mods | (1 << this.#modifiers.get(m))) >>> 0;
      }
      this.#tokens.push([range.start.line, range.start.character, range.end.character - range.start.character, this.#types.get(a1), mods]);
      return;
    }
    throw illegal();
  }

  // build returns the tokens so far as SemanticTokens.
  build(resultId) {
    const tokens = this.#tokens.slice().sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const data = new Uint32Array(tokens.length * 5);
    let line = 0;
    let char = 0;
    tokens.forEach(([l, c, len, type, mods], i) => {
      data.set([l - line, l === line ? c - char : c, len, type, mods], i * 5);
      line = l;
      char = c;
    });
    return new SemanticTokens(data, resultId);
  }
}

module.exports = {
  Diagnostic, DiagnosticRelatedInformation, CodeActionKind, DocumentDropOrPasteEditKind, CodeAction, CodeLens, Hover,
  EvaluatableExpression, InlineValueText, InlineValueVariableLookup, InlineValueEvaluatableExpression,
  DocumentHighlight, SymbolInformation, DocumentSymbol, DocumentLink, FoldingRange, SelectionRange,
  ParameterInformation, SignatureInformation, SignatureHelp, CompletionItem, CompletionList, InlineCompletionItem,
  InlineCompletionList, Color, ColorInformation, ColorPresentation, InlayHintLabelPart, InlayHint, CallHierarchyItem,
  CallHierarchyIncomingCall, CallHierarchyOutgoingCall, TypeHierarchyItem, LinkedEditingRanges, DocumentDropEdit,
  DocumentPasteEdit, SemanticTokensLegend, SemanticTokens, SemanticTokensEdit, SemanticTokensEdits, SemanticTokensBuilder,
};
