package main

import (
	genv "github.com/gemini-environments/pulumi-gemini-environments/sdk/go/geminienvironments"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		agent, err := genv.NewEnvironment(ctx, "agent", &genv.EnvironmentArgs{
			Sources: genv.SourceArray{
				genv.SourceArgs{Type: genv.SourceTypeInline, Target: pulumi.String("workspace/TASK.md"), Content: pulumi.String("Triage the open issues.\n")},
			},
			Network: genv.EgressPolicyArgs{
				Allowlist: genv.AllowlistEntryArray{genv.AllowlistEntryArgs{Domain: pulumi.String("api.github.com")}},
			},
		})
		if err != nil {
			return err
		}
		ctx.Export("environmentId", agent.ID())
		ctx.Export("status", agent.Status)
		return nil
	})
}
