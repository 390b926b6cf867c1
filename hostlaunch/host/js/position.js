// @ts-check
'use strict';
// Positions in text: Position, Range, Selection and Location, immutable
// as in VS Code.
const { Uri } = require('./vsuri.js');

// illegal is VS Code's error for a bad argument.
function illegal(name) {
  return new Error(name ? `Illegal argument: ${name}` : 'Illegal argument');
}

// fix defines read-only enumerable properties on o.
function fix(o, props) {
  for (const [k, v] of Object.entries(props)) Object.defineProperty(o, k, { value: v, enumerable: true, writable: false, configurable: true });
}

// Position: a zero-based line and character in a text document.
class Position {
  constructor(line, character) {
    if (typeof line !== 'number' || Number.isNaN(line)) throw illegal('line');
    if (typeof character !== 'number' || Number.isNaN(character)) throw illegal('character');
    if (line < 0) throw illegal('line must be non-negative');
    if (character < 0) throw illegal('character must be non-negative');
    // Declarations only (fix defines them read-only).
    /** @type {number} */
    this.line;
    /** @type {number} */
    this.character;
    fix(this, { line, character });
  }

  // isPosition reports whether other is a Position or has a numeric line
  // and character.
  static isPosition(other) {
    if (other instanceof Position) return true;
    return !!other && typeof other.line === 'number' && typeof other.character === 'number';
  }

  // of makes a Position of a position-like object.
  static of(p) {
    if (p instanceof Position) return p;
    if (!Position.isPosition(p)) throw illegal('position');
    return new Position(p.line, p.character);
  }

  // Min and Max are the earliest and the latest of positions.
  static Min(...ps) { return ps.reduce((a, b) => (b.isBefore(a) ? b : a)); }
  static Max(...ps) { return ps.reduce((a, b) => (b.isAfter(a) ? b : a)); }

  isBefore(other) { return this.compareTo(other) < 0; }
  isBeforeOrEqual(other) { return this.compareTo(other) <= 0; }
  isAfter(other) { return this.compareTo(other) > 0; }
  isAfterOrEqual(other) { return this.compareTo(other) >= 0; }
  isEqual(other) { return this.line === other.line && this.character === other.character; }

  // compareTo is negative, zero or positive as this is before, equal to
  // or after other.
  compareTo(other) {
    if (this.line !== other.line) return this.line < other.line ? -1 : 1;
    if (this.character !== other.character) return this.character < other.character ? -1 : 1;
    return 0;
  }

  // translate moves by deltas, (lineDelta, characterDelta) or
  // {lineDelta, characterDelta}; this when both are 0.
  translate(lineDelta, characterDelta) {
    if (lineDelta === null || characterDelta === null) throw illegal();
    let dl = 0;
    let dc = 0;
    if (typeof lineDelta === 'object' && lineDelta !== undefined) {
      dl = lineDelta.lineDelta === undefined ? 0 : lineDelta.lineDelta;
      dc = lineDelta.characterDelta === undefined ? 0 : lineDelta.characterDelta;
    } else {
      dl = lineDelta === undefined ? 0 : lineDelta;
      dc = characterDelta === undefined ? 0 : characterDelta;
    }
    if (typeof dl !== 'number' || typeof dc !== 'number') throw illegal();
    if (dl === 0 && dc === 0) return this;
    return new Position(this.line + dl, this.character + dc);
  }

  // with replaces the line or character, (line, character) or {line,
  // character}; this when nothing changes.
  with(line, character) {
    if (line === null || character === null) throw illegal();
    let l = this.line;
    let c = this.character;
    if (typeof line === 'object' && line !== undefined) {
      if (line.line !== undefined) l = line.line;
      if (line.character !== undefined) c = line.character;
    } else {
      if (line !== undefined) l = line;
      if (character !== undefined) c = character;
    }
    if (l === this.line && c === this.character) return this;
    return new Position(l, c);
  }

  toJSON() { return { line: this.line, character: this.character }; }
}

// Range: an ordered pair of positions, start before or equal to end.
class Range {
  constructor(startLine, startCharacter, endLine, endCharacter) {
    let start;
    let end;
    if (typeof startLine === 'number' && typeof startCharacter === 'number' && typeof endLine === 'number' && typeof endCharacter === 'number') {
      start = new Position(startLine, startCharacter);
      end = new Position(endLine, endCharacter);
    } else if (Position.isPosition(startLine) && Position.isPosition(startCharacter)) {
      start = Position.of(startLine);
      end = Position.of(startCharacter);
    }
    if (!start || !end) throw new Error('Invalid arguments');
    // Declarations only (fix defines them read-only).
    /** @type {Position} */
    this.start;
    /** @type {Position} */
    this.end;
    if (start.isBefore(end)) fix(this, { start, end });
    else fix(this, { start: end, end: start });
  }

  // isRange reports whether thing is a Range or has a start and an end
  // that are positions.
  static isRange(thing) {
    if (thing instanceof Range) return true;
    return !!thing && Position.isPosition(thing.start) && Position.isPosition(thing.end);
  }

  // of makes a Range of a range-like object.
  static of(r) {
    if (r instanceof Range) return r;
    if (!Range.isRange(r)) throw illegal('range');
    return new Range(r.start, r.end);
  }

  get isEmpty() { return this.start.isEqual(this.end); }
  get isSingleLine() { return this.start.line === this.end.line; }

  // contains reports whether a position or a range lies inside this one
  // (the ends included).
  contains(positionOrRange) {
    if (Range.isRange(positionOrRange)) return this.contains(positionOrRange.start) && this.contains(positionOrRange.end);
    if (Position.isPosition(positionOrRange)) {
      const p = Position.of(positionOrRange);
      return !p.isBefore(this.start) && !p.isAfter(this.end);
    }
    return false;
  }

  isEqual(other) { return this.start.isEqual(other.start) && this.end.isEqual(other.end); }

  // intersection is the overlap with other (empty where they only
  // touch), undefined where there is none.
  intersection(other) {
    const start = Position.Max(Position.of(other.start), this.start);
    const end = Position.Min(Position.of(other.end), this.end);
    if (start.isAfter(end)) return undefined;
    return new Range(start, end);
  }

  // union is the smallest range covering this and other.
  union(other) {
    if (this.contains(other)) return this;
    if (Range.of(other).contains(this)) return other;
    return new Range(Position.Min(Position.of(other.start), this.start), Position.Max(Position.of(other.end), this.end));
  }

  // with replaces start or end, (start, end) or {start, end}; this when
  // nothing changes.
  with(start, end) {
    if (start === null || end === null) throw illegal();
    let s = this.start;
    let e = this.end;
    if (Position.isPosition(start)) {
      s = start;
      if (end !== undefined) e = end;
    } else if (start === undefined) {
      if (end !== undefined) e = end;
    } else if (typeof start === 'object') {
      if (start.start !== undefined) s = start.start;
      if (start.end !== undefined) e = start.end;
    } else {
      throw illegal();
    }
    s = Position.of(s);
    e = Position.of(e);
    if (s.isEqual(this.start) && e.isEqual(this.end)) return this;
    return new Range(s, e);
  }

  // toJSON is [start, end], as in VS Code.
  /** @returns {any} */
  toJSON() { return [this.start, this.end]; }
}

// Selection: a range with an anchor (where it began) and an active end
// (the cursor).
class Selection extends Range {
  constructor(anchorLine, anchorCharacter, activeLine, activeCharacter) {
    let anchor;
    let active;
    if (typeof anchorLine === 'number' && typeof anchorCharacter === 'number' && typeof activeLine === 'number' && typeof activeCharacter === 'number') {
      anchor = new Position(anchorLine, anchorCharacter);
      active = new Position(activeLine, activeCharacter);
    } else if (Position.isPosition(anchorLine) && Position.isPosition(anchorCharacter)) {
      anchor = Position.of(anchorLine);
      active = Position.of(anchorCharacter);
    }
    if (!anchor || !active) throw new Error('Invalid arguments');
    super(anchor, active);
    // Declarations only (fix defines them read-only).
    /** @type {Position} */
    this.anchor;
    /** @type {Position} */
    this.active;
    fix(this, { anchor, active });
  }

  // isSelection reports whether thing is a Selection or looks like one.
  static isSelection(thing) {
    if (thing instanceof Selection) return true;
    return !!thing && Range.isRange(thing) && Position.isPosition(thing.anchor) && Position.isPosition(thing.active) && typeof thing.isReversed === 'boolean';
  }

  // isReversed: the anchor is the end (the active end is before it).
  get isReversed() { return this.active.isBefore(this.anchor); }

  toJSON() { return { start: this.start, end: this.end, active: this.active, anchor: this.anchor }; }
}

// Location: a range (or position) in a resource.
class Location {
  constructor(uri, rangeOrPosition) {
    this.uri = uri;
    if (rangeOrPosition === undefined || rangeOrPosition === null) {
      // no range: VS Code allows it
    } else if (Range.isRange(rangeOrPosition)) {
      this.range = Range.of(rangeOrPosition);
    } else if (Position.isPosition(rangeOrPosition)) {
      const p = Position.of(rangeOrPosition);
      this.range = new Range(p, p);
    } else {
      throw illegal('rangeOrPosition');
    }
  }

  // isLocation reports whether thing is a Location or has a Uri and a
  // range.
  static isLocation(thing) {
    if (thing instanceof Location) return true;
    return !!thing && Range.isRange(thing.range) && Uri.isUri(thing.uri);
  }

  toJSON() { return { uri: this.uri, range: this.range }; }
}

module.exports = { Position, Range, Selection, Location, illegal };
