// One prompt end to end through the reference TypeScript ACP client
// (npm @agentclientprotocol/sdk), against `agent acp`. Usage:
//   node tsclient.mjs SDK_DIR AGENT_BIN CWD
// Prints one JSON line: {"stopReason", "text", "toolCalls", "permissions"}.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, bin, cwd] = process.argv.slice(2);
const acp = await import(pathToFileURL(path.join(sdkDir, "node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js")).href);

const child = spawn(bin, ["acp"], { cwd, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

let text = "";
let toolCalls = 0;
let permissions = 0;
const app = acp
  .client({ name: "ts-reference-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    const u = params.update;
    if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") text += u.content.text;
    if (u.sessionUpdate === "tool_call") toolCalls++;
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    permissions++;
    const allow = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  });

const result = await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  if (init.protocolVersion !== acp.PROTOCOL_VERSION) throw new Error("protocol " + init.protocolVersion);
  const s = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  return await ctx.request(acp.methods.agent.session.prompt, {
    sessionId: s.sessionId,
    prompt: [{ type: "text", text: "write the file" }],
  });
});
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
console.log(JSON.stringify({ stopReason: result.stopReason, text, toolCalls, permissions, exit: child.exitCode }));
