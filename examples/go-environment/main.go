// A Go program declaring, through the generated Go SDK (sdk/go/geminienvironments): a Credential holding
// a GitHub token, an Environment that is a copy of the team's base environment (made by another
// stack, a script or a person, and looked up by id) and whose only egress is the GitHub API
// (where the egress proxy injects the token), and a GuardedEnvironment whose hooks deny `rm -rf` and
// whose policy cases run at every preview.
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	genv "github.com/gemini-environments/pulumi-gemini-environments/sdk/go/geminienvironments"
)

// gate denies a code_execution call whose code runs `rm -rf`.
const gate = `import json, sys
code = json.load(sys.stdin)["tool_call"]["args"].get("code", "")
print(json.dumps({"decision": "deny", "reason": "destructive"} if "rm -rf" in code else {"decision": "allow"}))
`

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")

		github, err := genv.NewCredential(ctx, "github", &genv.CredentialArgs{
			CredentialId: pulumi.String("github-agent-token"),
			Type:         genv.CredentialTypeBearerToken,
			Token:        cfg.RequireSecret("githubToken"),
		})
		if err != nil {
			return err
		}

		// Made outside this program, looked up at every preview and update: a base that is gone stops
		// the program, naming its id, before anything is created from it.
		base := genv.LookupEnvironmentOutput(ctx, genv.LookupEnvironmentOutputArgs{Id: pulumi.String(cfg.Require("baseEnvironmentId"))})

		agent, err := genv.NewEnvironment(ctx, "agent", &genv.EnvironmentArgs{
			FromEnvironment: base.Id(),
			Network: genv.EgressPolicyArgs{
				Allowlist: genv.AllowlistEntryArray{
					genv.AllowlistEntryArgs{Domain: pulumi.String("api.github.com"), Credential: github.CredentialId},
				},
			},
		})
		if err != nil {
			return err
		}

		guarded, err := genv.NewGuardedEnvironment(ctx, "guarded", &genv.GuardedEnvironmentArgs{
			Hooks: genv.HookBundleArgs{
				Config: genv.HooksGroupMap{
					"security-gate": genv.HooksGroupArgs{
						PreToolExecution: genv.HooksRuleArray{
							genv.HooksRuleArgs{
								Matcher: pulumi.String("code_execution"),
								Hooks: genv.HookHandlerArray{
									genv.HookHandlerArgs{Command: genv.CommandHandlerArgs{Command: pulumi.String("python3 /.agents/hooks-scripts/gate.py"), Timeout: pulumi.Int(10)}},
								},
							},
						},
					},
				},
				Scripts: pulumi.StringMap{"gate.py": pulumi.String(gate)},
				Tests: genv.HooksTestCaseArray{
					genv.HooksTestCaseArgs{
						Name:     pulumi.String("rm -rf is blocked"),
						ToolCall: pulumi.Map{"name": pulumi.String("code_execution"), "args": pulumi.Map{"code": pulumi.String("rm -rf /")}},
						Expect:   genv.HookDecisionDeny,
						Reason:   pulumi.String("destructive"),
					},
				},
			},
			Network:              genv.EgressPolicyArgs{Disabled: pulumi.Bool(true)},
			AcknowledgedWarnings: genv.LintCodeArray{genv.LintCodeInlineHooksWritable},
		})
		if err != nil {
			return err
		}

		ctx.Export("baseStatus", base.Status())
		ctx.Export("baseFileCount", base.FileCount())
		ctx.Export("agentId", agent.ID())
		ctx.Export("agentStatus", agent.Status)
		ctx.Export("guardedId", guarded.EnvironmentId)
		ctx.Export("policyTests", guarded.PolicyTests)
		return nil
	})
}
