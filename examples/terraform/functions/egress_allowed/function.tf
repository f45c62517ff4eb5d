# Would the egress proxy let the agent reach a URL? Asked of the environment's own network, by the
# proxy's own rule: a check block warns at every plan and apply when an assertion fails.
resource "geminienvironments_environment" "agent" {
  network = {
    allowlist = [{ domain = "api.github.com" }, { domain = "*.githubusercontent.com" }]
  }
}

check "agent_egress" {
  assert {
    condition     = provider::geminienvironments::egress_allowed(geminienvironments_environment.agent.network, "https://api.github.com/repos")
    error_message = "The agent cannot reach the GitHub API."
  }
  assert {
    condition     = !provider::geminienvironments::egress_allowed(geminienvironments_environment.agent.network, "https://pastebin.com/")
    error_message = "The agent can reach pastebin.com."
  }
}

# The network is sensitive in part (an allowlist entry's transform), and so is what is computed from
# it: nonsensitive() to show a bool.
output "raw_files_allowed" {
  value = nonsensitive(provider::geminienvironments::egress_allowed(geminienvironments_environment.agent.network, "https://raw.githubusercontent.com/org/repo/main/README.md"))
}

# A wildcard covers subdomains, not the apex.
output "apex_allowed" {
  value = nonsensitive(provider::geminienvironments::egress_allowed(geminienvironments_environment.agent.network, "https://githubusercontent.com/"))
}

# null: no policy, every host.
output "without_policy" {
  value = provider::geminienvironments::egress_allowed(null, "https://pastebin.com/")
}
