terraform {
  required_providers {
    geminienvironments = {
      source = "gemini-environments/geminienvironments"
    }
  }
}

# api_key and base_url default to the GOOGLE_API_KEY (or GEMINI_API_KEY) and GOOGLE_GEMINI_BASE_URL
# environment variables. Set base_url to "http://127.0.0.1:8765" to work against `genv serve`, the
# local emulator.
provider "geminienvironments" {}
