// @ts-check
'use strict';
// Chat and language model data types: chat turns and response parts,
// language model messages, parts, tool results and errors, and MCP
// server definitions.
const { MarkdownString } = require('./edits.js');
const enums = require('./enums.js');

// ChatRequestTurn: a request in a chat's history.
class ChatRequestTurn {
  constructor(prompt, command, references, participant, toolReferences) {
    Object.assign(this, { prompt, command, references, participant, toolReferences });
  }
}

// ChatResponseTurn: a participant's response in a chat's history.
class ChatResponseTurn {
  constructor(response, result, participant, command) {
    Object.assign(this, { response, result, participant, command });
  }
}

// ChatResponseMarkdownPart: Markdown in a chat response.
class ChatResponseMarkdownPart {
  constructor(value) {
    this.value = typeof value === 'string' ? new MarkdownString(value) : value;
  }
}

// ChatResponseFileTreePart: a file tree in a chat response.
class ChatResponseFileTreePart {
  constructor(value, baseUri) {
    this.value = value;
    this.baseUri = baseUri;
  }
}

// ChatResponseAnchorPart: a link to a Uri or Location in a response.
class ChatResponseAnchorPart {
  constructor(value, title) {
    this.value = value;
    this.title = title;
  }
}

// ChatResponseProgressPart: a progress message in a chat response.
class ChatResponseProgressPart {
  constructor(value) {
    this.value = value;
  }
}

// ChatResponseReferencePart: a reference the response used.
class ChatResponseReferencePart {
  constructor(value, iconPath) {
    this.value = value;
    this.iconPath = iconPath;
  }
}

// ChatResponseCommandButtonPart: a button running a command.
class ChatResponseCommandButtonPart {
  constructor(value) {
    this.value = value;
  }
}

// LanguageModelTextPart: text in a language model message.
class LanguageModelTextPart {
  constructor(value) {
    this.value = value;
  }
}

// LanguageModelPromptTsxPart: a prompt-tsx element in a message.
class LanguageModelPromptTsxPart {
  constructor(value) {
    this.value = value;
  }
}

// LanguageModelToolCallPart: a model's call of a tool.
class LanguageModelToolCallPart {
  constructor(callId, name, input) {
    this.callId = callId;
    this.name = name;
    this.input = input;
  }
}

// LanguageModelToolResultPart: a tool's result, for the model.
class LanguageModelToolResultPart {
  constructor(callId, content) {
    this.callId = callId;
    this.content = content;
  }
}

// LanguageModelToolResult: what a tool returns.
class LanguageModelToolResult {
  constructor(content) {
    this.content = content;
  }
}

// LanguageModelDataPart: bytes of a mime type in a message.
class LanguageModelDataPart {
  constructor(data, mimeType) {
    this.data = data;
    this.mimeType = mimeType;
  }

  static image(data, mime) { return new LanguageModelDataPart(data, mime); }
  static json(value, mime = 'text/x-json') { return new LanguageModelDataPart(new TextEncoder().encode(JSON.stringify(value, undefined, '\t')), mime); }
  static text(value, mime = 'text/plain') { return new LanguageModelDataPart(new TextEncoder().encode(value), mime); }
}

// LanguageModelChatMessage: a message to or from a language model; a
// string content becomes one text part.
class LanguageModelChatMessage {
  constructor(role, content, name) {
    this.role = role;
    this.content = typeof content === 'string' ? [new LanguageModelTextPart(content)] : content;
    this.name = name;
  }

  static User(content, name) { return new LanguageModelChatMessage(enums.LanguageModelChatMessageRole.User, content, name); }
  static Assistant(content, name) { return new LanguageModelChatMessage(enums.LanguageModelChatMessageRole.Assistant, content, name); }
}

// LanguageModelError: a language model request's failure; code names it
// ('NoPermissions', 'Blocked', 'NotFound' or 'Unknown').
class LanguageModelError extends Error {
  constructor(message, code = 'Unknown', cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'LanguageModelError';
    this.code = code;
  }

  static NoPermissions(message) { return new LanguageModelError(message, 'NoPermissions'); }
  static Blocked(message) { return new LanguageModelError(message, 'Blocked'); }
  static NotFound(message) { return new LanguageModelError(message, 'NotFound'); }
}

// McpStdioServerDefinition: an MCP server run as a program.
class McpStdioServerDefinition {
  constructor(label, command, args = [], env = {}, version) {
    Object.assign(this, { label, command, args, env, version, cwd: undefined });
  }
}

// McpHttpServerDefinition: an MCP server reached over HTTP.
class McpHttpServerDefinition {
  constructor(label, uri, headers = {}, version) {
    Object.assign(this, { label, uri, headers, version });
  }
}

module.exports = {
  ChatRequestTurn, ChatResponseTurn, ChatResponseMarkdownPart, ChatResponseFileTreePart, ChatResponseAnchorPart,
  ChatResponseProgressPart, ChatResponseReferencePart, ChatResponseCommandButtonPart, LanguageModelTextPart,
  LanguageModelPromptTsxPart, LanguageModelToolCallPart, LanguageModelToolResultPart, LanguageModelToolResult,
  LanguageModelDataPart, LanguageModelChatMessage, LanguageModelError, McpStdioServerDefinition, McpHttpServerDefinition,
};
