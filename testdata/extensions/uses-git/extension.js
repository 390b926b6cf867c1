"use strict";
const vscode = require("vscode");

/**
 * Registers usesGit.showGitVersion, which runs Git Helper's command. VS Code
 * installs and activates airvsx-demo.git-helper first because it is listed in
 * extensionDependencies.
 * @param {vscode.ExtensionContext} context
 */
function activate(context) {
  const disposable = vscode.commands.registerCommand("usesGit.showGitVersion", async () => {
    const helper = vscode.extensions.getExtension("airvsx-demo.git-helper");
    if (!helper) {
      vscode.window.showErrorMessage("airvsx-demo.git-helper is not installed");
      return;
    }
    await helper.activate();
    await vscode.commands.executeCommand("gitHelper.showVersion");
  });
  context.subscriptions.push(disposable);
}

function deactivate() {}

module.exports = { activate, deactivate };
