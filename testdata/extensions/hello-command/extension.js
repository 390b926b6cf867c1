"use strict";
const vscode = require("vscode");

/**
 * Called on the first use of hello.sayHello (activation is implied by
 * contributes.commands since VS Code 1.74).
 * @param {vscode.ExtensionContext} context
 */
function activate(context) {
  const disposable = vscode.commands.registerCommand("hello.sayHello", () => {
    vscode.window.showInformationMessage("Hello from airvsx-demo.hello-command!");
  });
  context.subscriptions.push(disposable);
}

function deactivate() {}

module.exports = { activate, deactivate };
