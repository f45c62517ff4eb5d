"""python-github-agent: an agent environment that may reach only the GitHub API.

A Credential holds the GitHub token (from secret stack config); the egress proxy injects it on
requests to api.github.com, so the agent never sees it. The environment carries the security gate
(.agents/hooks.json and its script, read from this directory) and a task file. Both resources are
served by the provider plugin (pulumi-resource-gemini-environments); the two small classes below give
them names and typed outputs, as a generated SDK would.
"""
from pathlib import Path

import pulumi

HERE = Path(__file__).parent


class Credential(pulumi.CustomResource):
    """gemini-environments:index:Credential, a bearer token here (see schema.json for every field)."""

    credentialId: pulumi.Output[str]
    status: pulumi.Output[str]

    def __init__(self, name, credential_id, token, opts=None):
        props = {"credentialId": credential_id, "type": "bearer_token", "token": token, "status": None}
        super().__init__("gemini-environments:index:Credential", name, props, opts)


class Environment(pulumi.CustomResource):
    """gemini-environments:index:Environment: sources, network; status and file counts as outputs."""

    status: pulumi.Output[str]
    fileCount: pulumi.Output[int]

    def __init__(self, name, sources, network=None, opts=None):
        props = {"sources": sources, "network": network, "status": None, "fileCount": None}
        super().__init__("gemini-environments:index:Environment", name, props, opts)


def inline(target, path):
    return {"type": "inline", "target": target, "content": (HERE / path).read_text()}


config = pulumi.Config()
github = Credential(
    "github",
    credential_id=config.get("credentialId") or "github-agent-token",
    token=config.require_secret("githubToken"),
)
agent = Environment(
    "agent",
    sources=[
        inline(".agents/hooks.json", "hooks.json"),
        inline(".agents/hooks-scripts/gate.py", "hooks-scripts/gate.py"),
        {"type": "inline", "target": "workspace/TASK.md", "content": config.get("task") or "Triage the open issues.\n"},
    ],
    network={"allowlist": [{"domain": "api.github.com", "credential": github.credentialId}]},
)

pulumi.export("environmentId", agent.id)
pulumi.export("status", agent.status)
pulumi.export("fileCount", agent.fileCount)
pulumi.export("credentialId", github.credentialId)
