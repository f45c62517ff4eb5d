package main

import (
	genv "github.com/gemini-environments/pulumi-gemini-environments/sdk/go/geminienvironments"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const gate = `import json, sys
code = json.load(sys.stdin)["tool_call"]["args"].get("code", "")
print(json.dumps({"decision": "deny", "reason": "destructive"} if "rm -rf" in code else {"decision": "allow"}))
`

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
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
			Network: genv.EgressPolicyArgs{Disabled: pulumi.Bool(true)},
			Sources: genv.SourceArray{
				genv.SourceArgs{Type: genv.SourceTypeInline, Target: pulumi.String("workspace/README.md"), Content: pulumi.String("Scratch space.\n")},
			},
		})
		if err != nil {
			return err
		}
		ctx.Export("environmentId", guarded.EnvironmentId)
		ctx.Export("policyTests", guarded.PolicyTests)
		return nil
	})
}
