import pulumi
import pulumi_gemini_environments as genv

config = pulumi.Config()
github = genv.get_credential_output(credential_id=config.require("credentialId"))

agent = genv.Environment(
    "agent",
    network=genv.EgressPolicyArgs(
        allowlist=[genv.AllowlistEntryArgs(domain="api.github.com", credential=github.credential_id)],
    ),
)

pulumi.export("credentialType", github.type)
pulumi.export("credentialStatus", github.status)
pulumi.export("environmentId", agent.id)
