# What the API holds for an environment, read back as another tool would: its hooks.json and its
# network (what egress_allowed says of it for each of urls), for guarded_environment.tftest.hcl's
# assertions. The function is called here, not in an assert: OpenTofu 1.12.6's test runner crashes on
# a provider function in an assertion.
terraform {
  required_providers {
    geminienvironments = {
      source = "gemini-environments/geminienvironments"
    }
  }
}

variable "environment_id" {
  type = string
}

variable "urls" {
  type    = list(string)
  default = []
}

data "geminienvironments_environment" "held" {
  id = var.environment_id
}

data "geminienvironments_environment_file" "hooks_json" {
  environment_id = var.environment_id
  path           = ".agents/hooks.json"
}

data "geminienvironments_environment_file" "gate" {
  environment_id = var.environment_id
  path           = ".agents/hooks-scripts/gate.sh"
}

output "hooks_json" {
  value = data.geminienvironments_environment_file.hooks_json.content
}

output "gate" {
  value = data.geminienvironments_environment_file.gate.content
}

output "file_count" {
  value = data.geminienvironments_environment.held.file_count
}

output "egress" {
  value = { for url in var.urls : url => nonsensitive(provider::geminienvironments::egress_allowed(data.geminienvironments_environment.held.network, url)) }
}
