# `terraform test` (or `tofu test`) applies the module against the API the provider is configured for
# (GOOGLE_GEMINI_BASE_URL, e.g. `genv serve`), asserts with its outputs, with what the API holds (the
# tests/held module) and with provider::geminienvironments::egress_allowed, the proxy's own rule
# (through the egress outputs: OpenTofu 1.12.6 crashes on a provider function in an assert), then
# destroys what it made. An earlier run's outputs reach an assert through a variable of the test:
# OpenTofu reads `run.<name>` in variables only.

variables {
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
    "gate.sh" = "grep -q 'rm -rf' && echo '{\"decision\":\"deny\",\"reason\":\"no rm -rf\"}' || echo '{\"decision\":\"allow\"}'\n"
  }
  network = {
    allowlist = [{ domain = "api.github.com" }, { domain = "*.githubusercontent.com" }]
  }
  sources        = [{ type = "inline", target = "workspace/README.md", content = "The agent's workspace.\n" }]
  must_reach     = ["https://audit.example.com/events", "https://raw.githubusercontent.com/org/repo/main/README.md"]
  must_not_reach = ["https://pastebin.com/", "https://githubusercontent.com/"]
}

run "gated" {
  assert {
    condition     = output.status == "active" && output.file_count == 3
    error_message = "Expected an active environment with hooks.json, gate.sh and the README: ${output.status}, ${output.file_count} files."
  }
  assert {
    condition     = output.allowlist == ["api.github.com", "*.githubusercontent.com", "audit.example.com"]
    error_message = "The allowlist is the given entries, then the HTTP hook's host: ${jsonencode(output.allowlist)}."
  }
  assert {
    condition = output.egress == {
      "https://audit.example.com/events"                          = true
      "https://raw.githubusercontent.com/org/repo/main/README.md" = true
      "https://pastebin.com/"                                     = false
      "https://githubusercontent.com/"                            = false
    }
    error_message = "egress_allowed of the environment's network: ${jsonencode(output.egress)}."
  }
  assert {
    condition     = jsondecode(output.hooks_json)["audit"].post_tool_execution[0].hooks[0].url == "https://audit.example.com/events"
    error_message = "hooks.json does not hold the audit hook: ${output.hooks_json}."
  }
}

# What the API holds: the same hooks.json and script, and a network that lets the hook out and nothing else.
run "held" {
  module {
    source = "./tests/held"
  }
  variables {
    environment_id = run.gated.environment_id
    gated_hooks    = run.gated.hooks_json
    urls           = ["https://audit.example.com/events", "https://api.github.com/user", "https://pastebin.com/"]
  }
  assert {
    condition     = output.hooks_json == var.gated_hooks
    error_message = "The environment's .agents/hooks.json differs from the module's hooks_json."
  }
  assert {
    condition     = output.gate == var.hook_scripts["gate.sh"]
    error_message = "The environment's gate.sh differs from the script given."
  }
  assert {
    condition     = output.egress == { "https://audit.example.com/events" = true, "https://api.github.com/user" = true, "https://pastebin.com/" = false }
    error_message = "egress_allowed of the network the API holds: ${jsonencode(output.egress)}."
  }
}

# A script edited: uploaded in place, the environment and its id kept.
run "script_edited" {
  variables {
    hook_scripts = {
      "gate.sh" = "grep -q 'rm -rf\\|git push' && echo '{\"decision\":\"deny\",\"reason\":\"not here\"}' || echo '{\"decision\":\"allow\"}'\n"
    }
    gated_environment_id = run.gated.environment_id
  }
  assert {
    condition     = output.environment_id == var.gated_environment_id
    error_message = "Editing a script replaced the environment (${var.gated_environment_id} became ${output.environment_id})."
  }
}

run "script_edit_held" {
  module {
    source = "./tests/held"
  }
  variables {
    environment_id = run.script_edited.environment_id
  }
  assert {
    condition     = strcontains(output.gate, "git push") && output.file_count == 3
    error_message = "The environment does not hold the edited gate.sh: ${output.gate}"
  }
}

# The README's example, as a user's configuration calls the module.
run "example" {
  module {
    source = "./examples/agent"
  }
  assert {
    condition     = startswith(output.environment_id, "env_") && output.allowlist == ["api.github.com", "*.githubusercontent.com", "audit.example.com"]
    error_message = "examples/agent: ${output.environment_id}, ${jsonencode(output.allowlist)}."
  }
}

# An entry that already covers the hook's host: nothing added.
run "hook_host_covered" {
  command = plan
  variables {
    network        = { allowlist = [{ domain = "*.example.com" }] }
    must_reach     = ["https://audit.example.com/events"]
    must_not_reach = ["https://api.github.com/"]
  }
  assert {
    condition     = output.allowlist == ["*.example.com"]
    error_message = "An entry was added for a host *.example.com covers: ${jsonencode(output.allowlist)}."
  }
}

# No network: command hooks only (the provider refuses an HTTP hook that cannot reach its host).
run "disabled" {
  command = plan
  variables {
    hooks_config = jsonencode({
      "security-gate" = {
        pre_tool_execution = [{
          matcher = "code_execution"
          hooks   = [{ type = "command", command = "sh /.agents/hooks-scripts/gate.sh", timeout = 10 }]
        }]
      }
    })
    network        = { disabled = true }
    must_reach     = []
    must_not_reach = ["https://api.github.com/", "https://audit.example.com/events"]
  }
  assert {
    condition     = output.allowlist == null && output.egress == { "https://api.github.com/" = false, "https://audit.example.com/events" = false }
    error_message = "A disabled network lets a request out: ${jsonencode(output.egress)}."
  }
}

# A URL the network would not let out stops the plan.
run "must_reach_refused" {
  command = plan
  variables {
    must_reach = ["https://pastebin.com/"]
  }
  expect_failures = [geminienvironments_environment.this]
}

run "must_not_reach_allowed" {
  command = plan
  variables {
    must_not_reach = ["https://api.github.com/user"]
  }
  expect_failures = [geminienvironments_environment.this]
}

# Bad input stops the plan at the variable that holds it.
run "both_network_forms" {
  command = plan
  variables {
    network = { disabled = true, allowlist = [] }
  }
  expect_failures = [var.network]
}

run "domain_with_scheme" {
  command = plan
  variables {
    network = { allowlist = [{ domain = "https://api.github.com" }] }
  }
  expect_failures = [var.network]
}

run "script_name_with_a_path" {
  command = plan
  variables {
    hook_scripts = { "../gate.sh" = "exit 0\n" }
  }
  expect_failures = [var.hook_scripts]
}
