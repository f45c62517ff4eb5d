import pulumi
import pulumi_gemini_environments as genv

agent = genv.Environment(
    "agent",
    sources=[genv.SourceArgs(type=genv.SourceType.INLINE, target="workspace/TASK.md", content="Triage the open issues.\n")],
    network=genv.EgressPolicyArgs(allowlist=[genv.AllowlistEntryArgs(domain="api.github.com")]),
)

pulumi.export("environmentId", agent.id)
pulumi.export("status", agent.status)
