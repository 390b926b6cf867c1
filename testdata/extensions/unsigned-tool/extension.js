"use strict";
const vscode = require("vscode");

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("unsignedTool.run", () => {
      vscode.window.showInformationMessage("Unsigned Tool ran.");
    })
  );
}

function deactivate() {}

module.exports = { activate, deactivate };
