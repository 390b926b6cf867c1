// @ts-check
'use strict';
// Task data types: Task, TaskGroup and the executions (process, shell,
// custom).
const { illegal } = require('./position.js');

// TaskGroup: a group tasks belong to (build, test...); isDefault marks
// a group's default task.
class TaskGroup {
  constructor(id, label) {
    if (typeof id !== 'string') throw illegal('id');
    if (typeof label !== 'string') throw illegal('label');
    this.id = id;
    this.label = label;
    this.isDefault = undefined;
  }

  // from is the predefined group with id, or undefined.
  static from(id) {
    return [TaskGroup.Clean, TaskGroup.Build, TaskGroup.Rebuild, TaskGroup.Test].find((g) => g.id === id);
  }
}
TaskGroup.Clean = new TaskGroup('clean', 'Clean');
TaskGroup.Build = new TaskGroup('build', 'Build');
TaskGroup.Rebuild = new TaskGroup('rebuild', 'Rebuild');
TaskGroup.Test = new TaskGroup('test', 'Test');

// ProcessExecution: run a process directly, (process, args?, options?).
class ProcessExecution {
  constructor(process, argsOrOptions, options) {
    if (typeof process !== 'string') throw illegal('process');
    this.process = process;
    if (Array.isArray(argsOrOptions)) {
      this.args = argsOrOptions;
      this.options = options;
    } else {
      this.args = [];
      this.options = argsOrOptions;
    }
  }
}

// ShellExecution: run a command line in a shell, (commandLine,
// options?) or (command, args, options?).
class ShellExecution {
  constructor(commandOrLine, argsOrOptions, options) {
    if (Array.isArray(argsOrOptions)) {
      if (!commandOrLine) throw illegal("command can't be undefined or null");
      if (typeof commandOrLine !== 'string' && typeof commandOrLine.value !== 'string') throw illegal('command');
      this.commandLine = undefined;
      this.command = commandOrLine;
      this.args = argsOrOptions;
      this.options = options;
    } else {
      if (typeof commandOrLine !== 'string') throw illegal('commandLine');
      this.commandLine = commandOrLine;
      this.command = undefined;
      this.args = undefined;
      this.options = argsOrOptions;
    }
  }
}

// CustomExecution: a task the extension runs itself through a
// pseudoterminal its callback returns.
class CustomExecution {
  constructor(callback) {
    if (typeof callback !== 'function') throw illegal('callback');
    this._callback = callback;
  }

  // callback is the function given to the constructor.
  get callback() { return this._callback; }
}

// Task: a task to run, (definition, scope, name, source, execution?,
// problemMatchers?) or the deprecated (definition, name, source,
// execution?, problemMatchers?) without a scope.
class Task {
  constructor(definition, scopeOrName, nameOrSource, sourceOrExecution, executionOrMatchers, problemMatchers) {
    if (definition === undefined || definition === null) throw illegal("Kind can't be undefined or null");
    let matchers;
    this.definition = definition;
    if (typeof scopeOrName === 'string') {
      this.scope = undefined;
      this.name = scopeOrName;
      this.source = nameOrSource;
      this.execution = sourceOrExecution;
      matchers = executionOrMatchers;
    } else {
      this.scope = scopeOrName;
      this.name = nameOrSource;
      this.source = sourceOrExecution;
      this.execution = executionOrMatchers;
      matchers = problemMatchers;
    }
    if (typeof this.name !== 'string') throw illegal('name');
    if (typeof this.source !== 'string' || !this.source) throw illegal('source must be a string of length > 0');
    this.problemMatchers = typeof matchers === 'string' ? [matchers] : Array.isArray(matchers) ? matchers : [];
    this.hasDefinedMatchers = matchers !== undefined;
    this.detail = undefined;
    this.isBackground = false;
    this.group = undefined;
    this.presentationOptions = {};
    this.runOptions = {};
  }
}

module.exports = { TaskGroup, ProcessExecution, ShellExecution, CustomExecution, Task };
