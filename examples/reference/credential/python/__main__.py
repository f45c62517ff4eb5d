import pulumi
import pulumi_gemini_environments as genv

config = pulumi.Config()

github = genv.Credential(
    "github",
    credential_id="github-token",
    type=genv.CredentialType.BEARER_TOKEN,
    token=config.require_secret("githubToken"),
)

agent = genv.Environment(
    "agent",
    network=genv.EgressPolicyArgs(
        allowlist=[genv.AllowlistEntryArgs(domain="api.github.com", credential=github.credential_id)],
    ),
)

pulumi.export("credentialId", github.credential_id)
pulumi.export("environmentId", agent.id)
