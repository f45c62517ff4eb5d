output "environment_id" {
  description = "The environment's id, e.g. env_abc123: hand it to an interaction as its environment."
  value       = geminienvironments_environment.this.id
}

output "status" {
  description = "active, or expired once idle too long (the next apply after a refresh replaces it)."
  value       = geminienvironments_environment.this.status
}

output "file_count" {
  description = "The number of files in the environment: hooks.json, the scripts and the other sources."
  value       = geminienvironments_environment.this.file_count
}

output "hooks_json" {
  description = "The .agents/hooks.json text the environment holds (deterministic: the data source's)."
  value       = data.geminienvironments_hooks.this.hooks_json
}

output "allowlist" {
  description = "The domains the environment's allowlist holds, in order: the given entries, then the HTTP hooks' hosts they did not cover. null with { disabled = true }."
  value       = var.network.disabled ? null : [for entry in local.network.allowlist : entry.domain]
}

output "hook_hosts" {
  description = "The hosts the HTTP hooks POST to."
  value       = local.hook_hosts
}

output "egress" {
  description = "Each URL of must_reach and must_not_reach, and whether the environment's network lets a request to it out (egress_allowed)."
  value       = { for url in concat(var.must_reach, var.must_not_reach) : url => nonsensitive(provider::geminienvironments::egress_allowed(geminienvironments_environment.this.network, url)) }
}

output "network" {
  description = "The environment's network, as held: for provider::geminienvironments::egress_allowed(module.<name>.network, url). Sensitive, as an allowlist entry's transform is: nonsensitive() on the bool."
  value       = geminienvironments_environment.this.network
  sensitive   = true
}

output "drifted_hook_files" {
  description = "Hook files that a refresh found changed or removed in the environment (an agent rewriting its guardrails); the next apply uploads them again."
  value       = geminienvironments_environment.this.drifted_hook_files
}
