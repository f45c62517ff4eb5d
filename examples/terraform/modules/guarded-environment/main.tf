# The HCL form of the Pulumi component GuardedEnvironment: a hooks config and its scripts (linted at
# plan), an explicit egress policy that lets the HTTP hooks reach their servers, and sources, in one
# environment.

# Linted at plan: an error stops the plan, a warning is shown.
data "geminienvironments_hooks" "this" {
  config  = var.hooks_config
  scripts = var.hook_scripts
}

locals {
  explicit_allowlist = [for entry in coalesce(var.network.allowlist, []) : { domain = entry.domain, credential = entry.credential, transform = null }]

  # The hosts the HTTP hooks POST to (the hooks.json layout: group, event, rules, each rule's hooks).
  hook_urls = distinct(flatten([
    for group in values(jsondecode(var.hooks_config)) : [
      for event in ["pre_tool_execution", "post_tool_execution"] : [
        for rule in try(group[event], []) : [
          for handler in try(rule.hooks, []) : handler.url if try(handler.type, "") == "http" && can(handler.url)
        ]
      ]
    ]
  ]))
  hook_hosts = distinct([for url in local.hook_urls : lower(regex("^[A-Za-z][A-Za-z0-9+.-]*://([^/:?#@]+)", url)[0])])

  # Each hook host no explicit entry lets through, asked of the proxy's own matcher: added, as
  # GuardedEnvironment's allowHookHosts does (the provider refuses an HTTP hook whose host is not allowed).
  uncovered_hook_hosts = [
    for host in local.hook_hosts : host
    if !provider::geminienvironments::egress_allowed({ allowlist = local.explicit_allowlist, disabled = null }, "https://${host}/")
  ]

  network = var.network.disabled ? { disabled = true, allowlist = null } : {
    disabled  = null
    allowlist = concat(local.explicit_allowlist, [for host in local.uncovered_hook_hosts : { domain = host, credential = null, transform = null }])
  }
}

resource "geminienvironments_environment" "this" {
  # The hooks' sources first (.agents/hooks.json, .agents/hooks-scripts/*), then the caller's.
  sources         = concat(data.geminienvironments_hooks.this.sources, var.sources)
  network         = local.network
  update_strategy = var.update_strategy

  lifecycle {
    # Asked of the network the environment is given, at plan (it is known from the configuration).
    postcondition {
      condition     = alltrue([for url in var.must_reach : nonsensitive(provider::geminienvironments::egress_allowed(self.network, url))])
      error_message = "The network does not let out: ${join(", ", [for url in var.must_reach : url if !nonsensitive(provider::geminienvironments::egress_allowed(self.network, url))])} (must_reach)."
    }
    postcondition {
      condition     = !anytrue([for url in var.must_not_reach : nonsensitive(provider::geminienvironments::egress_allowed(self.network, url))])
      error_message = "The network lets out: ${join(", ", [for url in var.must_not_reach : url if nonsensitive(provider::geminienvironments::egress_allowed(self.network, url))])} (must_not_reach)."
    }
  }
}
