package main

import (
	genv "github.com/gemini-environments/pulumi-gemini-environments/sdk/go/geminienvironments"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		github, err := genv.NewCredential(ctx, "github", &genv.CredentialArgs{
			CredentialId: pulumi.String("github-token"),
			Type:         genv.CredentialTypeBearerToken,
			Token:        cfg.RequireSecret("githubToken"),
		})
		if err != nil {
			return err
		}
		agent, err := genv.NewEnvironment(ctx, "agent", &genv.EnvironmentArgs{
			Network: genv.EgressPolicyArgs{
				Allowlist: genv.AllowlistEntryArray{
					genv.AllowlistEntryArgs{Domain: pulumi.String("api.github.com"), Credential: github.CredentialId},
				},
			},
		})
		if err != nil {
			return err
		}
		ctx.Export("credentialId", github.CredentialId)
		ctx.Export("environmentId", agent.ID())
		return nil
	})
}
