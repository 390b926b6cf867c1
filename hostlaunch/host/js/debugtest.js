// @ts-check
'use strict';
// Debug and testing data types: breakpoints, debug adapter descriptors,
// debug threads and frames, test tags, requests, messages and coverage.
const { illegal } = require('./position.js');
const { randomUUID } = require('node:crypto');

// Breakpoint: the base of the breakpoint kinds (enabled, conditions).
class Breakpoint {
  constructor(enabled, condition, hitCondition, logMessage, mode) {
    Object.defineProperty(this, 'id', { value: randomUUID(), enumerable: true });
    this.enabled = typeof enabled === 'boolean' ? enabled : true;
    if (typeof condition === 'string') this.condition = condition;
    if (typeof hitCondition === 'string') this.hitCondition = hitCondition;
    if (typeof logMessage === 'string') this.logMessage = logMessage;
    if (typeof mode === 'string') this.mode = mode;
  }
}

// SourceBreakpoint: a breakpoint at a location in source.
class SourceBreakpoint extends Breakpoint {
  constructor(location, enabled, condition, hitCondition, logMessage, mode) {
    super(enabled, condition, hitCondition, logMessage, mode);
    if (location === null || location === undefined) throw illegal('location');
    this.location = location;
  }
}

// FunctionBreakpoint: a breakpoint on a function, by name.
class FunctionBreakpoint extends Breakpoint {
  constructor(functionName, enabled, condition, hitCondition, logMessage, mode) {
    super(enabled, condition, hitCondition, logMessage, mode);
    this.functionName = functionName;
  }
}

// DebugAdapterExecutable: a debug adapter run as a program.
class DebugAdapterExecutable {
  constructor(command, args = [], options) {
    this.command = command;
    this.args = args;
    this.options = options;
  }
}

// DebugAdapterServer: a debug adapter reached on a TCP port.
class DebugAdapterServer {
  constructor(port, host) {
    this.port = port;
    this.host = host;
  }
}

// DebugAdapterNamedPipeServer: a debug adapter reached on a named pipe
// or Unix socket.
class DebugAdapterNamedPipeServer {
  constructor(path) {
    this.path = path;
  }
}

// DebugAdapterInlineImplementation: a debug adapter implemented by the
// extension itself.
class DebugAdapterInlineImplementation {
  constructor(implementation) {
    this.implementation = implementation;
  }
}

// DebugThread: a thread of a debug session.
class DebugThread {
  constructor(session, threadId) {
    this.session = session;
    this.threadId = threadId;
  }
}

// DebugStackFrame: a stack frame of a thread of a debug session.
class DebugStackFrame {
  constructor(session, threadId, frameId) {
    this.session = session;
    this.threadId = threadId;
    this.frameId = frameId;
  }
}

// TestTag: a tag test items and run profiles share.
class TestTag {
  constructor(id) {
    this.id = id;
  }
}

// TestRunRequest: which tests to run (and exclude) with which profile.
class TestRunRequest {
  constructor(include, exclude, profile, continuous = false, preserveFocus = true) {
    this.include = include;
    this.exclude = exclude;
    this.profile = profile;
    this.continuous = continuous;
    this.preserveFocus = preserveFocus;
  }
}

// TestMessageStackFrame: a frame of a failed test's stack trace.
class TestMessageStackFrame {
  constructor(label, uri, position) {
    this.label = label;
    this.uri = uri;
    this.position = position;
  }
}

// TestMessage: a message about a test result (a failure's text, the
// expected and actual output of a diff).
class TestMessage {
  constructor(message) {
    this.message = message;
    // Declarations only: diff sets them.
    /** @type {string | undefined} */
    this.expectedOutput;
    /** @type {string | undefined} */
    this.actualOutput;
  }

  // diff is a message that shows expected against actual.
  static diff(message, expected, actual) {
    const m = new TestMessage(message);
    m.expectedOutput = expected;
    m.actualOutput = actual;
    return m;
  }
}

// TestCoverageCount: how many of a file's elements were covered.
class TestCoverageCount {
  constructor(covered, total) {
    if (covered < 0 || total < 0 || covered > total) throw illegal(`coverage ${covered}/${total}`);
    this.covered = covered;
    this.total = total;
  }
}

// StatementCoverage: whether (or how often) a statement ran.
class StatementCoverage {
  constructor(executed, location, branches = []) {
    this.executed = executed;
    this.location = location;
    this.branches = branches;
  }
}

// BranchCoverage: whether (or how often) a branch was taken.
class BranchCoverage {
  constructor(executed, location, label) {
    this.executed = executed;
    this.location = location;
    this.label = label;
  }
}

// DeclarationCoverage: whether (or how often) a function ran.
class DeclarationCoverage {
  constructor(name, executed, location) {
    this.name = name;
    this.executed = executed;
    this.location = location;
  }
}

// FileCoverage: the coverage counts of a file.
class FileCoverage {
  constructor(uri, statementCoverage, branchCoverage, declarationCoverage, includesTests = []) {
    this.uri = uri;
    this.statementCoverage = statementCoverage;
    this.branchCoverage = branchCoverage;
    this.declarationCoverage = declarationCoverage;
    this.includesTests = includesTests;
  }

  // fromDetails counts statement, branch and declaration coverage of
  // details into a FileCoverage.
  static fromDetails(uri, details) {
    const statements = new TestCoverageCount(0, 0);
    const branches = new TestCoverageCount(0, 0);
    const decls = new TestCoverageCount(0, 0);
    const ran = (e) => (typeof e === 'number' ? e > 0 : !!e);
    for (const d of details) {
      if (d instanceof DeclarationCoverage) {
        decls.total++;
        if (ran(d.executed)) decls.covered++;
        continue;
      }
      statements.total++;
      if (ran(d.executed)) statements.covered++;
      for (const b of d.branches || []) {
        branches.total++;
        if (ran(b.executed)) branches.covered++;
      }
    }
    return new FileCoverage(uri, statements, branches.total ? branches : undefined, decls.total ? decls : undefined);
  }
}

module.exports = {
  Breakpoint, SourceBreakpoint, FunctionBreakpoint, DebugAdapterExecutable, DebugAdapterServer,
  DebugAdapterNamedPipeServer, DebugAdapterInlineImplementation, DebugThread, DebugStackFrame, TestTag,
  TestRunRequest, TestMessageStackFrame, TestMessage, TestCoverageCount, StatementCoverage, BranchCoverage,
  DeclarationCoverage, FileCoverage,
};
