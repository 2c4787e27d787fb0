//===- Npy.cpp - Minimal NumPy .npy reader and writer ---------------------===//
//
// Format reference: numpy/lib/format.py. A file is the magic "\x93NUMPY",
// a major/minor version byte pair, a little-endian header length (2 bytes in
// version 1.0, 4 bytes in 2.0 and 3.0), then an ASCII (3.0: UTF-8) Python
// dict literal with the keys 'descr', 'fortran_order' and 'shape', padded
// with spaces and ended by '\n', then the raw element bytes.
//
//===----------------------------------------------------------------------===//

#include "ssd/Runner/Npy.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace ssd;

namespace {

const char kMagic[] = "\x93NUMPY";
const size_t kMagicLen = 6;

/// Text from a file, fit for a one-line message: control and non-ASCII bytes
/// as \xNN, at most 40 characters (a header key or dtype string can hold
/// anything, newlines included).
std::string printable(const std::string &text) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= 40) {
      out += "...";
      break;
    }
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
      continue;
    }
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

/// The file name used in messages: the path exactly as the caller gave it.
void fail(std::string &error, const std::string &path,
          const std::string &what) {
  error = path + ": " + what;
}

/// Closes the file descriptor on every return path.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

/// What a file that is not a regular file is, for messages.
const char *fileKind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "an unknown kind of file";
}

/// A tiny recursive-descent parser for the dict literal NumPy writes. It
/// accepts what any NumPy version produces (single or double quotes, optional
/// trailing commas, any key order) and nothing it does not need.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : s(text) {}

  bool parse(std::string &descr, bool &fortran, std::vector<int64_t> &shape,
             std::string &why) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    skipSpace();
    if (!eat('{'))
      return setWhy(why, "header is not a dict");
    while (true) {
      skipSpace();
      if (eat('}'))
        break;
      std::string key;
      if (!parseString(key))
        return setWhy(why, "header dict key is not a string");
      skipSpace();
      if (!eat(':'))
        return setWhy(why, "missing ':' in header dict");
      skipSpace();
      if (key == "descr") {
        if (!parseString(descr))
          return setWhy(why, "'descr' is not a simple dtype string "
                             "(structured dtypes are not supported)");
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(fortran))
          return setWhy(why, "'fortran_order' is not True or False");
        haveFortran = true;
      } else if (key == "shape") {
        if (!parseShape(shape, why))
          return false;
        haveShape = true;
      } else {
        return setWhy(why, "unexpected header key '" + printable(key) + "'");
      }
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat('}'))
        break;
      return setWhy(why, "malformed header dict");
    }
    skipSpace();
    if (pos != s.size())
      return setWhy(why, "trailing characters after header dict");
    if (!haveDescr || !haveFortran || !haveShape)
      return setWhy(why, "header lacks one of 'descr', 'fortran_order', "
                         "'shape'");
    return true;
  }

private:
  const std::string &s;
  size_t pos = 0;

  static bool setWhy(std::string &why, const std::string &w) {
    why = "malformed header: " + w;
    return false;
  }
  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' ||
                              s[pos] == '\n' || s[pos] == '\r'))
      ++pos;
  }
  bool eat(char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool parseString(std::string &out) {
    if (pos >= s.size() || (s[pos] != '\'' && s[pos] != '"'))
      return false;
    char quote = s[pos++];
    size_t start = pos;
    while (pos < s.size() && s[pos] != quote) {
      if (s[pos] == '\\')
        return false; // NumPy never escapes inside these strings.
      ++pos;
    }
    if (pos >= s.size())
      return false;
    out = s.substr(start, pos - start);
    ++pos;
    return true;
  }
  bool parseBool(bool &out) {
    if (s.compare(pos, 4, "True") == 0) {
      pos += 4;
      out = true;
      return true;
    }
    if (s.compare(pos, 5, "False") == 0) {
      pos += 5;
      out = false;
      return true;
    }
    return false;
  }
  bool parseShape(std::vector<int64_t> &shape, std::string &why) {
    shape.clear();
    if (!eat('('))
      return setWhy(why, "'shape' is not a tuple");
    while (true) {
      skipSpace();
      if (eat(')'))
        return true;
      if (pos >= s.size() || s[pos] < '0' || s[pos] > '9')
        return setWhy(why, "'shape' holds something other than "
                           "non-negative integers");
      int64_t v = 0;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        int digit = s[pos++] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - digit) / 10)
          return setWhy(why, "dimension too large");
        v = v * 10 + digit;
      }
      if (pos < s.size() && s[pos] == 'L')
        ++pos; // Python 2 longs, still seen in old files.
      shape.push_back(v);
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat(')'))
        return true;
      return setWhy(why, "malformed 'shape' tuple");
    }
  }
};

std::string shapeTuple(const std::vector<int64_t> &shape) {
  std::string t = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      t += ", ";
    t += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    t += ",";
  t += ")";
  return t;
}

/// resize() that reports an allocation failure instead of aborting (the
/// project is built without exceptions).
bool tryResize(std::vector<uint8_t> &v, size_t n) {
  if (n > v.max_size())
    return false;
  // Probe with malloc first: a size the allocator refuses would otherwise
  // end the process in std::bad_alloc.
  void *probe = std::malloc(n ? n : 1);
  if (!probe)
    return false;
  std::free(probe);
  v.resize(n);
  return true;
}

/// Total byte size, or -1 on overflow.
int64_t byteSize(const std::vector<int64_t> &shape, int64_t itemSize) {
  int64_t total = itemSize;
  for (int64_t d : shape) {
    if (d < 0)
      return -1;
    if (d != 0 && total > std::numeric_limits<int64_t>::max() / d)
      return -1;
    total *= d;
  }
  return total;
}

} // namespace

int64_t NpyArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t ssd::npyItemSize(const std::string &descr) {
  if (descr == "<f4" || descr == "<i4" || descr == "<u4")
    return 4;
  if (descr == "<f8")
    return 8;
  if (descr == "<f2")
    return 2;
  if (descr == "|b1" || descr == "|u1" || descr == "|i1")
    return 1;
  return 0;
}

bool ssd::readNpy(const std::string &path, NpyArray &out, std::string &error) {
  // O_NONBLOCK: opening a FIFO without a writer must not wait for one (it is
  // then rejected below as not a regular file).
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    fail(error, path,
         std::string("cannot open (") + std::strerror(errno) + ")");
    return false;
  }
  FdCloser closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    fail(error, path,
         std::string("cannot stat (") + std::strerror(errno) + ")");
    return false;
  }
  // Only a regular file has a size to read: a directory, a FIFO or a device
  // (an endless /dev/zero) has none, and their reads fail, block or never
  // end.
  if (!S_ISREG(st.st_mode)) {
    fail(error, path,
         std::string("not a regular file (") + fileKind(st.st_mode) + ")");
    return false;
  }
  // The whole file in one buffer, which then becomes the array's data (the
  // header is shifted out in place): no second copy of a large array. The
  // size fstat gave bounds the read, so a file that grows meanwhile is read
  // only that far.
  std::vector<uint8_t> bytes;
  if (st.st_size < 0 || !tryResize(bytes, size_t(st.st_size))) {
    fail(error, path,
         "cannot allocate " + std::to_string(int64_t(st.st_size)) +
             " bytes to read it");
    return false;
  }
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      fail(error, path,
           std::string("read error (") + std::strerror(errno) + ")");
      return false;
    }
    if (n == 0) {
      fail(error, path,
           "read error (the file shrank to " + std::to_string(got) +
               " bytes while being read)");
      return false;
    }
    got += size_t(n);
  }
  return parseNpy(path, std::move(bytes), out, error);
}

bool ssd::parseNpy(const std::string &path, std::vector<uint8_t> &&bytes,
                   NpyArray &out, std::string &error) {
  const int64_t fileSize = int64_t(bytes.size());
  const uint8_t *pre = bytes.data();
  size_t got = std::min<size_t>(bytes.size(), 12);
  if (got < kMagicLen || std::memcmp(pre, kMagic, kMagicLen) != 0) {
    fail(error, path, "not a .npy file (bad magic)");
    return false;
  }
  if (got < 10) {
    fail(error, path, "truncated header");
    return false;
  }
  int major = pre[6], minor = pre[7];
  int64_t headerStart, headerLen;
  if (major == 1) {
    headerStart = 10;
    headerLen = pre[8] | (pre[9] << 8);
  } else if (major == 2 || major == 3) {
    if (got < 12) {
      fail(error, path, "truncated header");
      return false;
    }
    headerStart = 12;
    headerLen = int64_t(pre[8]) | (int64_t(pre[9]) << 8) |
                (int64_t(pre[10]) << 16) | (int64_t(pre[11]) << 24);
  } else {
    fail(error, path,
         "unsupported .npy format version " + std::to_string(major) + "." +
             std::to_string(minor));
    return false;
  }
  if (headerStart + headerLen > fileSize) {
    fail(error, path, "truncated header");
    return false;
  }

  std::string header(reinterpret_cast<const char *>(pre) + headerStart,
                     size_t(headerLen));
  std::string descr, why;
  bool fortran = false;
  std::vector<int64_t> shape;
  HeaderParser parser(header);
  if (!parser.parse(descr, fortran, shape, why)) {
    fail(error, path, why);
    return false;
  }
  int64_t itemSize = npyItemSize(descr);
  if (itemSize == 0) {
    fail(error, path, "unsupported dtype '" + printable(descr) + "'");
    return false;
  }
  // With at most one dimension above 1 both orders lay out the same bytes,
  // so only reject files where the order actually matters.
  int bigDims = 0;
  for (int64_t d : shape)
    bigDims += d > 1;
  if (fortran && bigDims > 1) {
    fail(error, path, "Fortran order is not supported");
    return false;
  }
  int64_t expected = byteSize(shape, itemSize);
  if (expected < 0) {
    fail(error, path, "shape " + shapeTuple(shape) + " is too large");
    return false;
  }
  int64_t found = fileSize - headerStart - headerLen;
  if (found < expected) {
    fail(error, path,
         "truncated data (expected " + std::to_string(expected) +
             " bytes, found " + std::to_string(found) + ")");
    return false;
  }
  // NumPy never writes anything after the data; extra bytes mean the file
  // is not what its header says.
  if (found > expected) {
    fail(error, path,
         "unexpected trailing data (expected " + std::to_string(expected) +
             " bytes, found " + std::to_string(found) + ")");
    return false;
  }

  out.descr = descr;
  out.shape = shape;
  bytes.erase(bytes.begin(), bytes.begin() + (headerStart + headerLen));
  out.data = std::move(bytes);
  return true;
}

bool ssd::writeNpy(const std::string &path, const NpyArray &a,
                   std::string &error) {
  int64_t itemSize = npyItemSize(a.descr);
  if (itemSize == 0) {
    fail(error, path, "unsupported dtype '" + a.descr + "'");
    return false;
  }
  int64_t expected = byteSize(a.shape, itemSize);
  if (expected < 0 || int64_t(a.data.size()) != expected) {
    fail(error, path,
         "data size " + std::to_string(a.data.size()) +
             " does not match shape " + shapeTuple(a.shape));
    return false;
  }

  std::string dict =
      "{'descr': '" + a.descr +
      "', 'fortran_order': False, 'shape': " + shapeTuple(a.shape) + ", }";
  // NumPy pads so the data starts on a 64-byte boundary (aligned loads, mmap).
  int major = 1;
  size_t prefix = 10;
  if (dict.size() + 1 + prefix > 65535) {
    major = 2;
    prefix = 12;
  }
  size_t total = prefix + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  std::string header = dict + std::string(padded - total, ' ') + "\n";

  std::string pre(kMagic, kMagicLen);
  pre += char(major);
  pre += char(0);
  uint32_t len = uint32_t(header.size());
  pre += char(len & 0xff);
  pre += char((len >> 8) & 0xff);
  if (major == 2) {
    pre += char((len >> 16) & 0xff);
    pre += char((len >> 24) & 0xff);
  }

  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    fail(error, path,
         std::string("cannot create (") + std::strerror(errno) + ")");
    return false;
  }
  bool ok = std::fwrite(pre.data(), 1, pre.size(), f) == pre.size() &&
            std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            (a.data.empty() ||
             std::fwrite(a.data.data(), 1, a.data.size(), f) == a.data.size());
  // fclose flushes; a full disk often shows up only here.
  if (std::fclose(f) != 0)
    ok = false;
  if (!ok) {
    fail(error, path,
         std::string("write error (") + std::strerror(errno) + ")");
    std::remove(path.c_str());
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Half-precision helpers
//===----------------------------------------------------------------------===//

namespace {
uint32_t floatBits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
float bitsFloat(uint32_t b) {
  float v;
  std::memcpy(&v, &b, 4);
  return v;
}
} // namespace

uint16_t ssd::floatToHalfBits(float v) {
  uint32_t bits = floatBits(v);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  uint32_t absBits = bits & 0x7fffffffu;
  if (absBits > 0x7f800000u) // NaN: keep the top payload bits, force quiet.
    return uint16_t(sign | 0x7e00u | ((absBits >> 13) & 0x3ffu));
  if (absBits == 0x7f800000u)
    return uint16_t(sign | 0x7c00u);

  int32_t exp = int32_t(absBits >> 23) - 127 + 15;
  uint32_t mant = absBits & 0x7fffffu;
  if (exp >= 31)
    return uint16_t(sign | 0x7c00u);
  if (exp >= 1) {
    // Normal: drop 13 bits; a carry out of the mantissa correctly bumps the
    // exponent, and out of exponent 30 gives infinity.
    uint32_t h = (uint32_t(exp) << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
      ++h;
    return uint16_t(sign | h);
  }
  // Subnormal half (or zero): the value is m * 2^(exp-38) with the implicit
  // bit in m, and a half subnormal counts units of 2^-24.
  if (exp < -10 || absBits == 0)
    return sign; // Below half of the smallest subnormal: rounds to zero.
  uint32_t m = mant | 0x800000u;
  uint32_t shift = uint32_t(14 - exp); // 14..24
  uint32_t h = m >> shift;
  uint32_t rest = m & ((1u << shift) - 1u);
  uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (h & 1u)))
    ++h;
  return uint16_t(sign | h);
}

float ssd::halfBitsToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float mag = std::ldexp(float(mant), -24);
    return sign ? -mag : mag;
  }
  if (exp == 31)
    return bitsFloat(sign | 0x7f800000u | (mant << 13));
  return bitsFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t ssd::floatToBF16Bits(float v) {
  uint32_t bits = floatBits(v);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((bits >> 16) | 0x0040u);
  // Adding 0x7fff plus the kept LSB rounds to nearest, ties to even; a carry
  // into the exponent (including up to infinity) is the correct result.
  uint32_t bias = 0x7fffu + ((bits >> 16) & 1u);
  return uint16_t((bits + bias) >> 16);
}

float ssd::bf16BitsToFloat(uint16_t bits) {
  return bitsFloat(uint32_t(bits) << 16);
}
