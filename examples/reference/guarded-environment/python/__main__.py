import pulumi
import pulumi_gemini_environments as genv

GATE = """import json, sys
code = json.load(sys.stdin)["tool_call"]["args"].get("code", "")
print(json.dumps({"decision": "deny", "reason": "destructive"} if "rm -rf" in code else {"decision": "allow"}))
"""

guarded = genv.GuardedEnvironment(
    "guarded",
    hooks=genv.HookBundleArgs(
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
        scripts={"gate.py": GATE},
        tests=[
            genv.HooksTestCaseArgs(
                name="rm -rf is blocked",
                tool_call={"name": "code_execution", "args": {"code": "rm -rf /"}},
                expect=genv.HookDecision.DENY,
                reason="destructive",
            ),
        ],
    ),
    network=genv.EgressPolicyArgs(disabled=True),
    sources=[genv.SourceArgs(type=genv.SourceType.INLINE, target="workspace/README.md", content="Scratch space.\n")],
)

pulumi.export("environmentId", guarded.environment_id)
pulumi.export("policyTests", guarded.policy_tests)
