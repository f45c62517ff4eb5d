# What an agent wrote into its environment: one file's text.
variable "environment_id" {
  type = string # e.g. "env_abc123"
}

data "geminienvironments_environment_file" "report" {
  environment_id = var.environment_id
  path           = "workspace/report.md"
}

output "report" {
  value = data.geminienvironments_environment_file.report.content
}
