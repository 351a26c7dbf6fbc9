# A shared object of ours (the Python extension, the GPU backend) links our
# static libraries: each must be position-independent. Walks the link
# dependencies of `target` and marks every static superopt_* library PIC.
function(superopt_position_independent target)
  get_target_property(libs ${target} LINK_LIBRARIES)
  get_target_property(interface_libs ${target} INTERFACE_LINK_LIBRARIES)
  foreach(lib IN LISTS libs interface_libs)
    if(TARGET ${lib} AND lib MATCHES "^superopt_")
      get_target_property(type ${lib} TYPE)
      get_target_property(done ${lib} POSITION_INDEPENDENT_CODE)
      if(type STREQUAL "STATIC_LIBRARY" AND NOT done)
        set_target_properties(${lib} PROPERTIES POSITION_INDEPENDENT_CODE ON)
        superopt_position_independent(${lib})
      elseif(type STREQUAL "INTERFACE_LIBRARY")
        superopt_position_independent(${lib})
      endif()
    endif()
  endforeach()
endfunction()
