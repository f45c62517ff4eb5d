# An agent's environment from the module: a security gate before every shell command, an audit hook
# after every tool call (its host joins the allowlist), egress to GitHub only, and the plan stops if
# the network would not let the agent reach the GitHub API or would let it reach pastebin.com.
terraform {
  required_providers {
    geminienvironments = {
      source = "gemini-environments/geminienvironments"
    }
  }
}

module "agent" {
  source = "../.." # your copy of examples/terraform/modules/guarded-environment

  hooks_config = jsonencode({
    "security-gate" = {
      pre_tool_execution = [{
        matcher = "code_execution"
        hooks   = [{ type = "command", command = "sh /.agents/hooks-scripts/gate.sh", timeout = 10 }]
      }]
    }
    "audit" = {
      post_tool_execution = [{
        matcher = ".*"
        hooks   = [{ type = "http", url = "https://audit.example.com/events" }]
      }]
    }
  })
  hook_scripts = {
    "gate.sh" = <<-EOT
      # Denies a shell command that holds `rm -rf`; the event JSON arrives on stdin.
      if grep -q 'rm -rf'; then
        echo '{"decision": "deny", "reason": "Destructive command blocked by security gate."}'
      else
        echo '{"decision": "allow"}'
      fi
    EOT
  }
  network = {
    allowlist = [{ domain = "api.github.com" }, { domain = "*.githubusercontent.com" }]
  }
  sources = [
    { type = "inline", target = "workspace/README.md", content = "Shell commands run through the security gate." },
  ]
  must_reach     = ["https://api.github.com/repos"]
  must_not_reach = ["https://pastebin.com/"]
}

output "environment_id" {
  value = module.agent.environment_id
}

output "allowlist" {
  value = module.agent.allowlist # ["api.github.com", "*.githubusercontent.com", "audit.example.com"]
}
