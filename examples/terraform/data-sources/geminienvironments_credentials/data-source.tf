# Every credential the API key can see, by id.
data "geminienvironments_credentials" "all" {}

output "credential_types" {
  value = { for credential in data.geminienvironments_credentials.all.credentials : credential.credential_id => credential.type }
}
