# An environment another stack, a script or `genv` made, by id.
variable "environment_id" {
  type = string # e.g. "env_abc123"
}

data "geminienvironments_environment" "shared" {
  id = var.environment_id
}

output "status" {
  value = data.geminienvironments_environment.shared.status
}

output "file_count" {
  value = data.geminienvironments_environment.shared.file_count
}
