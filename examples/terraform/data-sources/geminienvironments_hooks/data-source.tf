# A security gate: before every code_execution call, gate.py denies any `rm -rf`. The config and the
# script are linted at plan; the sources put them into the environment.
data "geminienvironments_hooks" "gate" {
  config = jsonencode({
    "security-gate" = {
      pre_tool_execution = [{
        matcher = "code_execution"
        hooks   = [{ type = "command", command = "python3 /.agents/hooks-scripts/gate.py", timeout = 10 }]
      }]
    }
  })
  scripts = {
    "gate.py" = file("${path.module}/gate.py")
  }
}

resource "geminienvironments_environment" "gated" {
  sources = concat(data.geminienvironments_hooks.gate.sources, [
    { type = "inline", target = "workspace/README.md", content = "Shell commands run through the security gate." },
  ])
  network = {
    disabled = true
  }
}

output "environment_id" {
  value = geminienvironments_environment.gated.id
}
