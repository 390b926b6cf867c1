"use strict";
const vscode = require("vscode");
const cp = require("child_process");

/**
 * Activated on startup finished. Registers gitHelper.showVersion, which runs
 * `git --version` in a child process (hence "capabilities.spawn": true).
 * @param {vscode.ExtensionContext} context
 */
function activate(context) {
  const disposable = vscode.commands.registerCommand("gitHelper.showVersion", () => {
    cp.execFile("git", ["--version"], { timeout: 10000 }, (err, stdout, stderr) => {
      if (err) {
        vscode.window.showErrorMessage(`git --version failed: ${err.message}${stderr ? ` (${stderr.trim()})` : ""}`);
        return;
      }
      vscode.window.showInformationMessage(stdout.trim());
    });
  });
  context.subscriptions.push(disposable);
}

function deactivate() {}

module.exports = { activate, deactivate };
