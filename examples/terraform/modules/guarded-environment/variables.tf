variable "hooks_config" {
  description = "The hooks config, the text of .agents/hooks.json: named groups, e.g. jsonencode({ \"security-gate\" = { pre_tool_execution = [{ matcher = \"code_execution\", hooks = [{ type = \"command\", command = \"python3 /.agents/hooks-scripts/gate.py\" }] }] } }). Linted at plan by the geminienvironments_hooks data source."
  type        = string
  nullable    = false

  validation {
    condition     = can(keys(jsondecode(var.hooks_config)))
    error_message = "hooks_config must be a JSON object of named hook groups, e.g. jsonencode({ \"security-gate\" = { pre_tool_execution = [...] } })."
  }
}

variable "hook_scripts" {
  description = "The scripts the hooks run, by file name, each shipped at .agents/hooks-scripts/<name> and run as /.agents/hooks-scripts/<name>, e.g. { \"gate.py\" = file(\"gate.py\") }."
  type        = map(string)
  default     = {}
  nullable    = false

  validation {
    condition     = alltrue([for name in keys(var.hook_scripts) : can(regex("^[A-Za-z0-9_][A-Za-z0-9._-]*$", name))])
    error_message = "hook_scripts' keys are plain file names (letters, digits, '.', '_', '-'; no '/'), e.g. \"gate.py\": each lands in .agents/hooks-scripts/."
  }
}

variable "network" {
  description = "The egress policy, always explicit: { disabled = true } for no network at all (then the hooks are command hooks only: an HTTP hook could not reach its server), or { allowlist = [{ domain = \"api.github.com\" }, { domain = \"*.githubusercontent.com\", credential = \"github-token\" }] } (an empty list allows nothing; [{ domain = \"*\" }] every host). An entry's credential is the id of a geminienvironments_credential whose secret the proxy injects."
  type = object({
    disabled = optional(bool, false)
    allowlist = optional(list(object({
      domain     = string
      credential = optional(string)
    })))
  })
  nullable = false

  validation {
    condition     = var.network.disabled != (var.network.allowlist != null)
    error_message = "network takes exactly one of { disabled = true } or { allowlist = [...] }: for every host, { allowlist = [{ domain = \"*\" }] }."
  }
  validation {
    condition     = alltrue([for entry in coalesce(var.network.allowlist, []) : can(regex("^(\\*|(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\\.?)$", entry.domain))])
    error_message = "network.allowlist[*].domain is a host name (api.example.com), its subdomains (*.example.com) or every host (*): no scheme, port or path."
  }
}

variable "sources" {
  description = "More sources after the hooks', e.g. the workspace the agent works on: [{ type = \"inline\", target = \"workspace/main.py\", content = \"print('hi')\" }] or [{ type = \"repository\", source = \"github://owner/repo\", target = \"workspace\" }]."
  type = list(object({
    type     = string
    target   = optional(string)
    content  = optional(string)
    source   = optional(string)
    encoding = optional(string)
  }))
  default  = []
  nullable = false

  validation {
    condition     = alltrue([for source in var.sources : !startswith(coalesce(source.target, "-"), ".agents/")])
    error_message = "sources[*].target under .agents/ would overwrite the hooks: give the hooks config and scripts in hooks_config and hook_scripts."
  }
}

variable "update_strategy" {
  description = "How a change to the hooks or other inline sources is applied: in_place (default: the files are uploaded, the environment, its id and the agent's work stay) or replace (a new environment)."
  type        = string
  default     = "in_place"
  nullable    = false

  validation {
    condition     = contains(["in_place", "replace"], var.update_strategy)
    error_message = "update_strategy is \"in_place\" or \"replace\"."
  }
}

variable "must_reach" {
  description = "URLs the agent (or an HTTP hook) must be able to reach, e.g. [\"https://api.github.com/repos\"]: the plan stops, naming them, when the environment's network would not let them out (egress_allowed, the proxy's own rule)."
  type        = list(string)
  default     = []
  nullable    = false

  validation {
    condition     = alltrue([for url in var.must_reach : can(regex("^https?://[^/?#]+", url))])
    error_message = "must_reach holds http or https URLs, e.g. \"https://api.github.com/repos\"."
  }
}

variable "must_not_reach" {
  description = "URLs the agent must not be able to reach, e.g. [\"https://pastebin.com/\"]: the plan stops, naming them, when the environment's network would let them out."
  type        = list(string)
  default     = []
  nullable    = false

  validation {
    condition     = alltrue([for url in var.must_not_reach : can(regex("^https?://[^/?#]+", url))])
    error_message = "must_not_reach holds http or https URLs, e.g. \"https://pastebin.com/\"."
  }
}
