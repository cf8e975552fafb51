#include "receipt/sha256.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <unistd.h>

namespace zl::receipt {

namespace {

struct CtxFree
{
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

class Digest
{
public:
  Digest() : m_ctx(EVP_MD_CTX_new())
  {
    if (!m_ctx || EVP_DigestInit_ex(m_ctx.get(), EVP_sha256(), nullptr) != 1) {
      throw Error("OpenSSL could not start a SHA-256 digest");
    }
  }
  void update(const char* data, size_t size) { EVP_DigestUpdate(m_ctx.get(), data, size); }
  std::string hex()
  {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(m_ctx.get(), md, &len);
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
      out += fmt::format("{:02x}", md[i]);
    }
    return out;
  }

private:
  std::unique_ptr<EVP_MD_CTX, CtxFree> m_ctx;
};

} // namespace

std::string sha256_file(const std::string& path)
{
  // Only a regular file: a FIFO or /dev/zero in a receipt would never end.
  const int fd = util::open_regular(path);
  Digest digest;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      if (n < 0) {
        throw Error(fmt::format("cannot read {}: {}", util::printable(path), std::strerror(err)));
      }
      return digest.hex();
    }
    digest.update(buf, static_cast<size_t>(n));
  }
}

std::string sha256_text(const std::string& text)
{
  Digest digest;
  digest.update(text.data(), text.size());
  return digest.hex();
}

} // namespace zl::receipt
