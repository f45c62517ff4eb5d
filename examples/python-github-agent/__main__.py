"""python-github-agent: an agent environment that may reach only the GitHub API.

A Credential holds the GitHub token (from secret stack config); the egress proxy injects it on
requests to api.github.com, so the agent never sees it. The agent's environment is a
GuardedEnvironment: the security gate's hooks (its script, gate.py, read from this directory) with
policy cases that run at every preview, and a task file. Typed classes of the generated Python SDK
(pulumi_gemini_environments); the provider plugin serves them.
"""
from pathlib import Path

import pulumi
import pulumi_gemini_environments as genv

HERE = Path(__file__).parent

config = pulumi.Config()
github = genv.Credential(
    "github",
    credential_id=config.get("credentialId") or "github-agent-token",
    type=genv.CredentialType.BEARER_TOKEN,
    token=config.require_secret("githubToken"),
)

gate = genv.HookBundleArgs(
    config={
        "security-gate": genv.HooksGroupArgs(
            pre_tool_execution=[
                genv.HooksRuleArgs(
                    matcher="code_execution",
                    hooks=[genv.HookHandlerArgs(command=genv.CommandHandlerArgs(command="python3 /.agents/hooks-scripts/gate.py", timeout=10))],
                ),
            ],
        ),
    },
    scripts={"gate.py": (HERE / "hooks-scripts" / "gate.py").read_text()},
    # Run at every preview in the local sandbox: a gate that stops deciding so fails the preview.
    tests=[
        genv.HooksTestCaseArgs(
            name="rm -rf is blocked",
            tool_call={"name": "code_execution", "args": {"code": "rm -rf /workspace"}},
            expect=genv.HookDecision.DENY,
            reason="Destructive",
        ),
        genv.HooksTestCaseArgs(
            name="listing the issues is allowed",
            tool_call={"name": "code_execution", "args": {"code": "curl -s https://api.github.com/repos/o/r/issues"}},
            expect=genv.HookDecision.ALLOW,
        ),
    ],
)

agent = genv.GuardedEnvironment(
    "agent",
    hooks=gate,
    sources=[
        genv.SourceArgs(type=genv.SourceType.INLINE, target="workspace/TASK.md", content=config.get("task") or "Triage the open issues.\n"),
    ],
    network=genv.EgressPolicyArgs(
        allowlist=[genv.AllowlistEntryArgs(domain="api.github.com", credential=github.credential_id)],
    ),
)

pulumi.export("environmentId", agent.environment_id)
pulumi.export("fileCount", agent.file_count)
pulumi.export("credentialId", github.credential_id)
pulumi.export("credentialStatus", github.status)
