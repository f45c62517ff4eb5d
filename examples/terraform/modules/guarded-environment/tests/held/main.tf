# What the API holds for an environment, read back as another tool would: its hooks.json and its
# network, for the assertions of guarded_environment.tftest.hcl.
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
