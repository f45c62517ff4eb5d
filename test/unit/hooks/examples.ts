/** The three worked examples of spec/HOOKS.md, as their hooks.json and network values. */
export const securityGate = {
  "security-gate": {
    pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }] }],
  },
};

export const privacyGate = {
  "privacy-gate": {
    pre_tool_execution: [{ matcher: "view_file", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/check_privacy.py", timeout: 5 }] }],
  },
};

export const auditLogging = {
  "audit-logging": {
    post_tool_execution: [
      {
        matcher: "view_file|write_to_file|replace_file_content",
        hooks: [{ type: "http", url: "https://telemetry.example.com/api/v1/agent-events", timeout: 10 }],
      },
    ],
  },
};

export const auditNetwork = {
  allowlist: [{ domain: "telemetry.example.com", transform: { Authorization: "Bearer <token>" } }, { domain: "*" }],
};

/** The spec's schema example, with two groups. */
export const schemaExample = {
  "security-gate": securityGate["security-gate"],
  "auto-format": {
    post_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/auto_lint.py", timeout: 15 }] }],
  },
};
