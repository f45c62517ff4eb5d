terraform {
  # Provider functions (egress_allowed) need Terraform 1.8 or OpenTofu 1.7.
  required_version = ">= 1.8"
  required_providers {
    geminienvironments = {
      source = "gemini-environments/geminienvironments"
    }
  }
}
