// AdapterLibrary and find_adapter_libraries on real files: the host adapter and the broken fixtures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include "hal/adapter_library.h"
#include "hal/adapter_loader.h"
#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal/device_registry.h"
#include "test_util.h"

namespace {

using hal::AdapterLibrary;
using hal::AdapterState;
using hal_test::fixture;

TEST(AdapterLibrary, LoadsHostAdapter) {
  auto lib = AdapterLibrary::open(hal_test::host_adapter_path());
  ASSERT_EQ(lib->state(), AdapterState::Loaded) << lib->reason();
  EXPECT_EQ(lib->name(), "host");
  EXPECT_EQ(lib->abi_version(), HAL_ABI_VERSION);
  EXPECT_EQ(lib->device_count(), 1);  // TORCH_HAL_HOST_DEVICES=1 for this executable
  EXPECT_TRUE(lib->reason().empty());
  EXPECT_FALSE(lib->description().empty());
  EXPECT_EQ(lib->table().op_supported, nullptr);
}

TEST(AdapterLibrary, SecondOpenOfSameFileDoesNotShutDownTheRegistrysAdapter) {
  { auto lib = AdapterLibrary::open(hal_test::host_adapter_path()); }  // opened and closed again
  // The registry's host device must still work: allocate, copy through it and read back.
  std::vector<unsigned char> in(4096, 0xAB), out(4096, 0);
  hal::Allocation a = hal::allocate(0, in.size(), 0);
  hal::copy_host_to_device(0, a.ptr, in.data(), in.size(), 0, false, false);
  hal::copy_device_to_host(0, out.data(), a.ptr, out.size(), 0, false, false);
  hal::free_block(a.block);
  EXPECT_EQ(in, out);
}

TEST(AdapterLibrary, HostMemoryThatIsNoSizeIsRejected) {
  // A separate copy of the host adapter (its own globals), initialized with a bad TORCH_HAL_HOST_MEMORY.
  // "inf" and "1e30G" used to go through llround (undefined behaviour) and came out as some capacity.
  const char* before = std::getenv("TORCH_HAL_HOST_MEMORY");
  const std::string saved = before ? before : "";
  for (const char* bad : {"inf", "1e30G", "nan", "-5", "20000000T", "12Q"}) {
    setenv("TORCH_HAL_HOST_MEMORY", bad, 1);
    auto lib = AdapterLibrary::open(HAL_TEST_HOST_COPY);
    EXPECT_EQ(lib->state(), AdapterState::Broken) << bad;
    EXPECT_NE(lib->reason().find(std::string("TORCH_HAL_HOST_MEMORY='") + bad + "' is not a size"), std::string::npos)
        << lib->reason();
  }
  setenv("TORCH_HAL_HOST_MEMORY", "1.5K", 1);
  {
    auto lib = AdapterLibrary::open(HAL_TEST_HOST_COPY);
    ASSERT_EQ(lib->state(), AdapterState::Loaded) << lib->reason();
    uint64_t free_bytes = 0, total = 0;
    ASSERT_EQ(lib->table().get_memory_info(0, &free_bytes, &total), HAL_STATUS_SUCCESS);
    EXPECT_EQ(total, 1536u);
  }
  if (before) {
    setenv("TORCH_HAL_HOST_MEMORY", saved.c_str(), 1);
  } else {
    unsetenv("TORCH_HAL_HOST_MEMORY");
  }
}

TEST(AdapterLibrary, NotAnAdapter) {
  const std::string path = fixture("not_an_adapter");
  auto lib = AdapterLibrary::open(path);
  EXPECT_EQ(lib->state(), AdapterState::Broken);
  EXPECT_EQ(lib->reason(), path + " is not a torch_hal adapter: it does not export hal_adapter_query");
  EXPECT_EQ(lib->name(), "libhal_fixture_not_an_adapter");
}

TEST(AdapterLibrary, WrongAbiNamesBothVersions) {
  const std::string path = fixture("wrong_abi");
  auto lib = AdapterLibrary::open(path);
  EXPECT_EQ(lib->state(), AdapterState::Broken);
  EXPECT_EQ(lib->reason(), path + ": adapter ABI version 2.0, but this torch_hal speaks 1.4: rebuild the adapter "
                                  "against torch_hal's include/torch_hal/adapter.h");
  EXPECT_EQ(lib->abi_version(), 2u << 16);
  EXPECT_EQ(lib->name(), "fixture_wrong_abi");
}

TEST(AdapterLibrary, UnavailableKeepsTheAdaptersReason) {
  auto lib = AdapterLibrary::open(fixture("unavailable"));
  EXPECT_EQ(lib->state(), AdapterState::Unavailable);
  EXPECT_EQ(lib->reason(), "fixture runtime libfoo.so.1 not found: install foo");
  EXPECT_EQ(lib->name(), "fixture_unavailable");
  EXPECT_EQ(lib->device_count(), 0);
}

TEST(AdapterLibrary, MissingFileReportsDlerror) {
  auto lib = AdapterLibrary::open("/nonexistent/libhal_adapter_missing.so");
  EXPECT_EQ(lib->state(), AdapterState::Broken);
  EXPECT_NE(lib->reason().find("/nonexistent/libhal_adapter_missing.so cannot be loaded: "), std::string::npos)
      << lib->reason();
  EXPECT_NE(lib->reason().find("No such file"), std::string::npos) << lib->reason();  // dlerror() text
}

TEST(AdapterLibrary, EntryReturningNullIsReportedNotFollowed) {
  auto lib = AdapterLibrary::open(fixture("returns_null"));
  EXPECT_EQ(lib->state(), AdapterState::Broken);
  EXPECT_NE(lib->reason().find("libhal_fixture_returns_null.so"), std::string::npos) << lib->reason();
  EXPECT_NE(lib->reason().find("returned no table"), std::string::npos) << lib->reason();
}

// Writes `bytes` of `source` (all of it when bytes is npos) to `target`.
void copy_prefix(const std::string& source, const std::string& target, size_t bytes) {
  std::ifstream in(source, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(std::min(bytes, data.size())));
}

// dlopen of a library cut short inside a segment died of SIGBUS; now the file is looked at first.
TEST(AdapterLibrary, TruncatedOrNonElfFilesAreReportedWithoutLoading) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("hal_elf_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  struct Case {
    std::string file;
    size_t bytes;  // of the host adapter copied; npos: write `text` instead
    std::string text;
    std::string expected;
  };
  const size_t npos = std::string::npos;
  const Case cases[] = {
      {"libcut_header.so", 40, "", "is truncated: its ELF header"},
      {"libcut_4k.so", 4096, "", "is truncated"},
      {"libcut_64k.so", 65536, "", "is truncated"},
      {"libcut_tail.so", std::filesystem::file_size(HAL_TEST_HOST_COPY) - 8, "", "is truncated"},
      {"libtext.so", npos, "not a library\n", "is not a shared library: it does not start with the ELF magic number"},
      {"libempty.so", npos, "", "is empty"},
  };
  for (const Case& c : cases) {
    const std::string path = (dir / c.file).string();
    if (c.bytes != npos) {
      copy_prefix(HAL_TEST_HOST_COPY, path, c.bytes);
    } else {
      std::ofstream(path, std::ios::binary) << c.text;
    }
    auto lib = AdapterLibrary::open(path);
    EXPECT_EQ(lib->state(), AdapterState::Broken) << c.file;
    EXPECT_NE(lib->reason().find(path + " cannot be loaded: the file " + c.expected), std::string::npos)
        << lib->reason();
    EXPECT_NE(lib->reason().find("Rebuild or copy the adapter library again"), std::string::npos) << lib->reason();
  }
  auto folder = AdapterLibrary::open(dir.string() + "/");
  EXPECT_NE(folder->reason().find("is a directory"), std::string::npos) << folder->reason();
  std::filesystem::remove_all(dir);
}

// A copy of the host adapter's table to damage in one place.
hal_adapter_t host_table_copy() {
  auto lib = AdapterLibrary::open(hal_test::host_adapter_path());
  return lib->table();  // the library stays loaded by the registry, so the function pointers stay valid
}

TEST(AdapterLibrary, RefusesTableSmallerThanV1_0) {
  hal_adapter_t t = host_table_copy();
  t.struct_size = 64;
  auto lib = AdapterLibrary::from_table(&t, "small-table");
  EXPECT_EQ(lib->state(), AdapterState::Broken);
  EXPECT_NE(lib->reason().find("smaller than the"), std::string::npos) << lib->reason();
}

TEST(AdapterLibrary, RefusesNullRequiredFunction) {
  hal_adapter_t t = host_table_copy();
  t.device_synchronize = nullptr;
  auto lib = AdapterLibrary::from_table(&t, "incomplete-table");
  EXPECT_EQ(lib->state(), AdapterState::Broken);
  EXPECT_NE(lib->reason().find("device_synchronize"), std::string::npos) << lib->reason();
  EXPECT_EQ(AdapterLibrary::from_table(nullptr, "null")->state(), AdapterState::Broken);
}

TEST(AdapterLibrary, StateNames) {
  EXPECT_STREQ(hal::adapter_state_name(AdapterState::Loaded), "loaded");
  EXPECT_STREQ(hal::adapter_state_name(AdapterState::Unavailable), "unavailable");
  EXPECT_STREQ(hal::adapter_state_name(AdapterState::Broken), "broken");
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(AdapterLoader, OrderIsForcedThenPathThenPackageWithoutDuplicates) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("hal_loader_test_" + std::to_string(getpid()));
  fs::create_directories(root / "path");
  fs::create_directories(root / "pkg");
  for (const char* f : {"path/libhal_adapter_b.so", "path/libhal_adapter_a.so", "path/libother.so",
                        "path/libacme_hal_adapter.so", "path/libhal_adapter_x.txt", "pkg/libhal_adapter_c.so",
                        "pkg/libtorch_hal_core.so"}) {
    std::ofstream(root / f) << "not really a library";
  }
  std::vector<std::string> found;
  {
    ScopedEnv forced("TORCH_HAL_ADAPTERS", "/missing/forced.so:" + (root / "pkg/libhal_adapter_c.so").string());
    ScopedEnv path("TORCH_HAL_ADAPTER_PATH", (root / "path").string() + ":/does/not/exist:" + (root / "pkg").string());
    found = hal::find_adapter_libraries((root / "pkg").string());
  }
  const std::vector<std::string> expected = {
      "/missing/forced.so",                            // forced, missing: kept to be reported
      (root / "pkg/libhal_adapter_c.so").string(),     // forced; later finds of the same file are dropped
      (root / "path/libacme_hal_adapter.so").string(), // folder entries in name order
      (root / "path/libhal_adapter_a.so").string(),
      (root / "path/libhal_adapter_b.so").string(),
  };
  EXPECT_EQ(found, expected);
  fs::remove_all(root);
}

TEST(AdapterLoader, PackageFolderHoldsHostAdapter) {
  std::vector<std::string> found = hal::find_adapter_libraries(hal_test::lib_dir());
  // Among other built-in adapters (nvidia, where nvcc built it).
  EXPECT_NE(std::find(found.begin(), found.end(), hal_test::host_adapter_path()), found.end());
}

}  // namespace
